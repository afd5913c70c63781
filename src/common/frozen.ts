/**
 * Freezes `value` and everything in it, in place, and returns it. For state this process keeps and hands
 * out to many readers without copying it each time (memory mode): a reader's change throws instead of
 * reaching every other reader.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const inner of Object.values(value)) deepFreeze(inner);
  return Object.freeze(value);
}
