import { describe, expect, it } from 'vitest';
import { LazyMap, LazySet } from '../../src/common/lazy-collections.js';
import { createLogger } from '../../src/common/logger.js';
import { InFlight } from '../../src/slack/bolt-core.js';

/** Hash tables an object holds, directly or in its lazy collections. */
const tables = (o: object): number =>
  Object.values(o).reduce<number>((n, v) => {
    if (v instanceof Map || v instanceof Set) return n + 1;
    return v instanceof LazySet || v instanceof LazyMap ? n + tables(v) : n;
  }, 0);

describe("a scope's listeners in flight (issue 43 §2)", () => {
  it('waits for work after the acknowledgement, then keeps no table for it', async () => {
    const inFlight = new InFlight(createLogger({ level: 'silent', secrets: [] }));
    let finish = () => {};
    inFlight.afterAck(() => new Promise<void>((resolve) => (finish = resolve)));
    await expect.poll(() => tables(inFlight)).toBe(1);
    expect(await inFlight.drain(0)).toBe(1);
    finish();
    expect(await inFlight.drain(1_000)).toBe(0);
    await expect.poll(() => tables(inFlight)).toBe(0);
  });
});
