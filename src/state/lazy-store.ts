/**
 * A store built on its first use (issue 43 §2: a resident scope that never reads its analytics cache, weekly
 * schedules, assistant threads or evidence pays no Keyv for them; each Keyv with its adapter, hooks and stats
 * is ~2.4 KB of heap). Behaves as the store: every property is the built store's (methods bound to it). Only
 * for stores with nothing to start or stop: one never built has nothing to close.
 */
export function builtOnFirstUse<T extends object>(build: () => T): T {
  let store: T | undefined;
  return new Proxy({} as T, {
    get(_target, property) {
      store ??= build();
      const value = Reflect.get(store, property, store) as unknown;
      return typeof value === 'function' ? value.bind(store) : value;
    },
  });
}
