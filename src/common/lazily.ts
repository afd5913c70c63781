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

/**
 * Forwards every read to the built part, methods bound to it. `then` is answered without building while
 * unbuilt, so handing one from an async function (which looks for a thenable) does not build it.
 */
const FORWARD: ProxyHandler<Lazy<object>> = {
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
