/**
 * Counts the timers alive in this process (intervals until cleared, time-outs until they fire or are
 * cleared), unref'd ones included, which `process.getActiveResourcesInfo()` leaves out. Installed for one
 * test file: `const timers = trackTimers(); … timers.live(); … timers.restore()`.
 */
export function trackTimers() {
  const live = new Set<unknown>();
  const original = {
    setTimeout: globalThis.setTimeout,
    clearTimeout: globalThis.clearTimeout,
    setInterval: globalThis.setInterval,
    clearInterval: globalThis.clearInterval,
  };
  const g = globalThis as unknown as Record<string, unknown>;
  g.setTimeout = (callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const handle = original.setTimeout(
      (...a: unknown[]) => {
        live.delete(handle);
        callback(...a);
      },
      ms,
      ...args,
    );
    live.add(handle);
    return handle;
  };
  g.clearTimeout = (handle: NodeJS.Timeout | undefined) => {
    live.delete(handle);
    original.clearTimeout(handle);
  };
  g.setInterval = (callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const handle = original.setInterval(callback, ms, ...args);
    live.add(handle);
    return handle;
  };
  g.clearInterval = (handle: NodeJS.Timeout | undefined) => {
    live.delete(handle);
    original.clearInterval(handle);
  };
  return {
    live: () => live.size,
    restore: () => Object.assign(globalThis, original),
  };
}
