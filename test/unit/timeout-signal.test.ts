import { afterEach, describe, expect, it, vi } from 'vitest';
import { withTimeoutSignal } from '../../src/common/timeout-signal.js';

describe('withTimeoutSignal', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('disarms its timer once the work settles, whether it succeeded or failed (no timer left to fire later)', async () => {
    vi.useFakeTimers();
    let armed = -1;
    expect(
      await withTimeoutSignal(10_000, async () => {
        armed = vi.getTimerCount();
        return 'done';
      }),
    ).toBe('done');
    expect(armed).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
    await expect(
      withTimeoutSignal(10_000, async () => {
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('aborts work still running after its time with a TimeoutError', async () => {
    vi.useFakeTimers();
    const running = withTimeoutSignal(
      5_000,
      (signal) =>
        new Promise<never>((_, reject) => {
          signal.addEventListener('abort', () => reject(signal.reason));
        }),
    );
    const outcome = running.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(5_000);
    expect((await outcome) as DOMException).toMatchObject({ name: 'TimeoutError' });
  });
});
