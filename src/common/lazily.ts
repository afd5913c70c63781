/*
 * A part built when something first uses it (issue 43 §2: a resident tenant scope pays only for the service
 * groups its tenant uses; one that only runs commands and jobs builds no Home, reports, assistant or previews).
 */

/** A value built once, on the first `get()`; `ifBuilt()` never builds (what a stop closes). */
export class Lazy<T> {
  private value: T | undefined;
  private build: (() => T) | undefined;

  constructor(build: () => T) {
    this.build = build;
  }

  get(): T {
    const build = this.build;
    if (build) {
      // Cleared only once built: a build that threw is tried again at the next use.
      this.value = build();
      this.build = undefined;
    }
    return this.value as T;
  }

  /** The value if something used it already; undefined otherwise. */
  ifBuilt(): T | undefined {
    return this.build ? undefined : this.value;
  }
}

export function lazily<T>(build: () => T): Lazy<T> {
  return new Lazy(build);
}

/** One part of a group built on first use: a stand-in for it costs no closure of its own. */
class PartOf<T, K extends keyof T> {
  constructor(
    private readonly group: Lazy<T>,
    private readonly key: K,
  ) {}

  get(): T[K] {
    return this.group.get()[this.key];
  }

  ifBuilt(): T[K] | undefined {
    return this.group.ifBuilt()?.[this.key];
  }
}

/**
 * Forwards every read to the built part, methods bound to it. `then` is answered without building while
 * unbuilt, so handing one from an async function (which looks for a thenable) does not build it.
 */
const FORWARD: ProxyHandler<Pick<Lazy<object>, 'get' | 'ifBuilt'>> = {
  get(lazy, property) {
    if (property === 'then' && lazy.ifBuilt() === undefined) return undefined;
    const target = lazy.get();
    const value = Reflect.get(target, property, target) as unknown;
    return typeof value === 'function' ? value.bind(target) : value;
  },
  has: (lazy, property) => Reflect.has(lazy.get(), property),
};

/**
 * An object that stands for one built on its first use, for deps handed to code outside the composition
 * (listeners, services) that reads them as plain objects. Every property read builds it; nothing else does.
 * Not for parts with something to close: one never built is never closed.
 */
export function lazyObject<T extends object>(build: () => T): T {
  return new Proxy(lazily(build), FORWARD) as unknown as T;
}

/** A stand-in for `group.get()[key]`, as `lazyObject` (reading it builds the group). */
export function lazyPart<T, K extends keyof T>(group: Lazy<T>, key: K): T[K] & object {
  return new Proxy(new PartOf(group, key), FORWARD as never) as unknown as T[K] & object;
}

/**
 * `lazyObject` for a part with a `close`: closing it unbuilt builds nothing, and should something build it
 * after that (a straggler after a stop), it is closed at once, as the part itself would refuse to start.
 */
export function lazyClosable<T extends { close(): Promise<void> }>(build: () => T): T {
  let closed = false;
  const part = lazily(() => {
    const built = build();
    if (closed) void built.close();
    return built;
  });
  const close = async () => {
    closed = true;
  };
  return new Proxy(part, {
    ...FORWARD,
    get: (lazy, property, receiver) =>
      property === 'close' && lazy.ifBuilt() === undefined ? close : FORWARD.get!(lazy, property, receiver),
  }) as unknown as T;
}
