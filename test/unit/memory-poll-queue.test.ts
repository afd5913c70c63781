import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { MemoryPollQueue } from '../../src/state/memory/memory-poll-queue.js';

/** Bottleneck adds a few milliseconds of its own scheduling; offsets are compared within that slack. */
function expectOffsets(actual: number[], expected: number[]): void {
  expect(actual).toHaveLength(expected.length);
  actual.forEach((value, i) => {
    expect(value).toBeGreaterThanOrEqual(expected[i]!);
    expect(value).toBeLessThan(expected[i]! + 50);
  });
}

const logger = createLogger({ level: 'silent', secrets: [] });

describe('MemoryPollQueue', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('polls after the delay and re-schedules with the handler’s answer until it returns null', async () => {
    const queue = new MemoryPollQueue({ logger, concurrency: 2 });
    const polls: number[] = [];
    const answers = [1000, 2000, null];
    queue.start(async () => {
      polls.push(Date.now());
      return answers.shift() ?? null;
    });
    const t0 = Date.now();
    await queue.schedule('job', 500);
    await vi.advanceTimersByTimeAsync(499);
    expect(polls).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(10_000);
    expectOffsets(
      polls.map((t) => t - t0),
      [500, 1500, 3500],
    );
    expect(queue.size()).toBe(0);
    await queue.close();
  });

  it('keeps the earlier due time when scheduled twice', async () => {
    const queue = new MemoryPollQueue({ logger, concurrency: 1 });
    const polls: number[] = [];
    queue.start(async () => {
      polls.push(Date.now());
      return null;
    });
    const t0 = Date.now();
    await queue.schedule('job', 5000);
    await queue.schedule('job', 100);
    await queue.schedule('job', 3000);
    await vi.advanceTimersByTimeAsync(10_000);
    expectOffsets(
      polls.map((t) => t - t0),
      [100],
    );
    await queue.close();
  });

  it('applies a schedule made during a running poll once it finishes (a follow-up is not lost)', async () => {
    const queue = new MemoryPollQueue({ logger, concurrency: 1 });
    let release!: () => void;
    const polls: number[] = [];
    queue.start(async () => {
      polls.push(Date.now());
      if (polls.length === 1) await new Promise<void>((resolve) => (release = resolve));
      return polls.length === 1 ? 60_000 : null;
    });
    const t0 = Date.now();
    await queue.schedule('job', 0);
    await vi.advanceTimersByTimeAsync(20);
    expect(polls).toHaveLength(1);
    await queue.schedule('job', 10);
    await vi.advanceTimersByTimeAsync(1000);
    expect(polls).toHaveLength(1);
    release();
    await vi.advanceTimersByTimeAsync(100);
    // Second poll right after the first finished, not 60 s later as the first poll asked.
    expectOffsets(
      polls.map((t) => t - t0),
      [0, 1020],
    );
    await queue.close();
  });

  it('never runs more polls at once than its concurrency', async () => {
    const queue = new MemoryPollQueue({ logger, concurrency: 3 });
    let running = 0;
    let peak = 0;
    queue.start(async () => {
      running += 1;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, 100));
      running -= 1;
      return null;
    });
    for (let i = 0; i < 20; i++) await queue.schedule(`job-${i}`, 0);
    await vi.advanceTimersByTimeAsync(2000);
    expect(peak).toBe(3);
    expect(queue.size()).toBe(0);
    await queue.close();
  });

  it('survives a handler that throws, retrying later', async () => {
    const queue = new MemoryPollQueue({ logger, concurrency: 1 });
    let calls = 0;
    queue.start(async () => {
      calls += 1;
      if (calls === 1) throw new Error('boom');
      return null;
    });
    await queue.schedule('job', 0);
    await vi.advanceTimersByTimeAsync(31_000);
    expect(calls).toBe(2);
    await queue.close();
  });

  it('retries a poll whose handler threw after a short delay, not 30 s later', async () => {
    const queue = new MemoryPollQueue({ logger, concurrency: 1 });
    const polls: number[] = [];
    queue.start(async () => {
      polls.push(Date.now());
      if (polls.length === 1) throw new Error('state store unreachable');
      return null;
    });
    const t0 = Date.now();
    await queue.schedule('job', 0);
    await vi.advanceTimersByTimeAsync(1_100);
    expect(polls).toHaveLength(2);
    expect(polls[1]! - t0).toBeGreaterThanOrEqual(1_000);
    await queue.close();
  });

  it("waits out a delay past Node's timer limit (chained) instead of polling after 1 ms", async () => {
    const queue = new MemoryPollQueue({ logger, concurrency: 1 });
    const polls: number[] = [];
    queue.start(async () => {
      polls.push(Date.now());
      return null;
    });
    const t0 = Date.now();
    const thirtyDays = 30 * 24 * 60 * 60 * 1000;
    await queue.schedule('job', thirtyDays);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(polls).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(thirtyDays);
    expect(polls.map((t) => t - t0)).toHaveLength(1);
    expect(polls[0]! - t0).toBeGreaterThanOrEqual(thirtyDays);
    await queue.close();
  });
});
