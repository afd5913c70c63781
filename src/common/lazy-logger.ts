import type { Bindings, ChildLoggerOptions, Logger } from 'pino';

/*
 * A child logger built on first use. A tenant scope makes about thirty children (one per part), and most
 * never log in a quiet scope, yet a pino child costs an object with its own level methods and bindings
 * string each (issue 43 §2: a resident tenant ≤ 20 KB). A lazy child is a Proxy over a small record; the
 * first call that needs the real child (a log call, a set, `bindings()`...) builds it with the parent's
 * `child`, so lines, redaction and scrubbing are the parent's (it shares the parent's destination).
 */

/** Asked of any logger: the real (built) logger behind it, the logger itself when it is not lazy. */
const REAL = Symbol('lazy logger: the real one');

/** What a lazy child holds until it is built (a class: one shape, and named in heap snapshots). */
class LazyChild {
  real: Logger | undefined = undefined;
  constructor(
    public parent: Logger,
    public bindings: Bindings,
    public options: ChildLoggerOptions | undefined,
  ) {}
}

function build(lazy: LazyChild): Logger {
  if (!lazy.real) {
    lazy.real = realOf(lazy.parent).child(lazy.bindings, lazy.options);
    // Nothing else of the record is needed once built; the parent stays reachable through the real child.
    lazy.parent = lazy.real;
    lazy.bindings = {};
    lazy.options = undefined;
  }
  return lazy.real;
}

function realOf(logger: Logger): Logger {
  return (logger as unknown as { [REAL]?: Logger })[REAL] ?? logger;
}

const LEVELS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal']);
const dropped = (): void => {};

/*
 * One handler for every lazy child. Before the child is built, `child` stays lazy, `level` and
 * `isLevelEnabled` answer from the parent (a pino child takes its parent's level when it is built, unless
 * its options name one), and a log call below that level does nothing. Everything else builds it and then
 * acts on it; its methods run with `this` the proxy, whose reads and writes all reach the real child.
 */
const handler: ProxyHandler<LazyChild> = {
  get(lazy, prop, receiver) {
    if (prop === REAL) return build(lazy);
    if (prop === 'child')
      return (bindings: Bindings, options?: ChildLoggerOptions) =>
        lazyChild(receiver as Logger, bindings, options);
    if (!lazy.real && lazy.options?.level === undefined) {
      if (prop === 'level') return lazy.parent.level;
      if (prop === 'isLevelEnabled') return (level: string) => lazy.parent.isLevelEnabled(level);
      // A line below the level is dropped, as the built child would drop it (a quiet scope's debug lines).
      if (typeof prop === 'string' && LEVELS.has(prop) && !lazy.parent.isLevelEnabled(prop)) return dropped;
    }
    return Reflect.get(build(lazy), prop);
  },
  set: (lazy, prop, value) => Reflect.set(build(lazy), prop, value),
  has: (lazy, prop) => prop === REAL || Reflect.has(build(lazy), prop),
  ownKeys: (lazy) => Reflect.ownKeys(build(lazy)),
  getOwnPropertyDescriptor: (lazy, prop) => Reflect.getOwnPropertyDescriptor(build(lazy), prop),
  defineProperty: (lazy, prop, descriptor) => Reflect.defineProperty(build(lazy), prop, descriptor),
  deleteProperty: (lazy, prop) => Reflect.deleteProperty(build(lazy), prop),
  getPrototypeOf: (lazy) => Reflect.getPrototypeOf(build(lazy)),
};

/**
 * `parent.child(bindings, options)`, built only when first used: a part that never logs costs a Proxy and
 * a small record instead of a pino child. Its own `child(...)` is lazy too and keeps both bindings.
 */
export function lazyChild(parent: Logger, bindings: Bindings, options?: ChildLoggerOptions): Logger {
  return new Proxy(new LazyChild(parent, bindings, options), handler) as unknown as Logger;
}
