import { describe, expect, it } from 'vitest';
import type { PollQueue } from '../../src/jobs/ports.js';
import { waitFor } from '../support/http.js';

/** Builds a fresh queue (its own namespace) and says how to dispose of it and what it holds. */
export type PollQueueFactory = (options: {
  concurrency: number;
}) => Promise<{ queue: PollQueue; close(): Promise<void> }>;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Records every handler call and how many polls of each job (and in all) ran at once. */
export class PollRecorder {
  readonly calls: string[] = [];
  readonly active = new Map<string, number>();
  maxActivePerJob = 0;
  maxActive = 0;
  private running = 0;

  constructor(private readonly behaviour: (jobId: string, call: number) => Promise<number | null>) {}

  readonly handler = async (jobId: string): Promise<number | null> => {
    this.calls.push(jobId);
    const call = this.callsOf(jobId);
    const mine = (this.active.get(jobId) ?? 0) + 1;
    this.active.set(jobId, mine);
    this.running += 1;
    this.maxActivePerJob = Math.max(this.maxActivePerJob, mine);
    this.maxActive = Math.max(this.maxActive, this.running);
    try {
      return await this.behaviour(jobId, call);
    } finally {
      this.active.set(jobId, (this.active.get(jobId) ?? 1) - 1);
      this.running -= 1;
    }
  };

  callsOf(jobId: string): number {
    return this.calls.filter((id) => id === jobId).length;
  }
}

export function gate(): { promise: Promise<void>; open(): void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** The `PollQueue` contract: every implementation must pass these same tests. */
export function pollQueueContract(create: PollQueueFactory): void {
  async function withQueue(concurrency: number, test: (queue: PollQueue) => Promise<void>): Promise<void> {
    const { queue, close } = await create({ concurrency });
    try {
      await test(queue);
    } finally {
      await close();
    }
  }

  describe('PollQueue contract', () => {
    it('polls a scheduled job, again after the delay it returns, and stops on null', () =>
      withQueue(2, async (queue) => {
        const polls = new PollRecorder(async (_id, call) => (call < 3 ? 20 : null));
        queue.start(polls.handler);
        await queue.schedule('job:1', 10);
        await waitFor(() => polls.callsOf('job:1') === 3, { what: 'three polls' });
        await sleep(300);
        expect(polls.calls).toEqual(['job:1', 'job:1', 'job:1']);
      }));

    it('keeps one pending poll per job however often it is scheduled', () =>
      withQueue(2, async (queue) => {
        const polls = new PollRecorder(async () => null);
        queue.start(polls.handler);
        await Promise.all([queue.schedule('a', 30), queue.schedule('a', 40), queue.schedule('a', 50)]);
        await queue.schedule('b', 50);
        await waitFor(() => polls.callsOf('a') === 1 && polls.callsOf('b') === 1, { what: 'polls' });
        await sleep(300);
        expect(polls.callsOf('a')).toBe(1);
      }));

    it('keeps the earlier due time: a follow-up is not held back by a long backoff', () =>
      withQueue(2, async (queue) => {
        const polls = new PollRecorder(async () => null);
        queue.start(polls.handler);
        await queue.schedule('late-then-soon', 10 * 60_000);
        await queue.schedule('late-then-soon', 20);
        await queue.schedule('soon-then-late', 20);
        await queue.schedule('soon-then-late', 10 * 60_000);
        await waitFor(() => polls.callsOf('late-then-soon') === 1 && polls.callsOf('soon-then-late') === 1, {
          what: 'both polled well before ten minutes',
        });
        await sleep(200);
        expect(polls.calls).toHaveLength(2);
      }));

    it('applies a schedule made during a running poll after that poll, never alongside it', () =>
      withQueue(2, async (queue) => {
        const first = gate();
        const started = gate();
        const polls = new PollRecorder(async (_id, call) => {
          if (call === 1) {
            started.open();
            await first.promise;
          }
          return null; // the poll itself would stop watching
        });
        queue.start(polls.handler);
        await queue.schedule('job', 0);
        await started.promise;
        await queue.schedule('job', 0);
        await sleep(100);
        expect(polls.callsOf('job')).toBe(1);
        first.open();
        await waitFor(() => polls.callsOf('job') === 2, { what: 'the poll requested during the first' });
        expect(polls.maxActivePerJob).toBe(1);
      }));

    it('runs at most `concurrency` polls at once and gets through all of them', () =>
      withQueue(2, async (queue) => {
        const polls = new PollRecorder(async () => {
          await sleep(60);
          return null;
        });
        queue.start(polls.handler);
        const ids = ['j1', 'j2', 'j3', 'j4', 'j5', 'j6'];
        for (const id of ids) await queue.schedule(id, 0);
        await waitFor(() => ids.every((id) => polls.callsOf(id) === 1), { what: 'all polls' });
        expect(polls.maxActive).toBeLessThanOrEqual(2);
        expect(polls.maxActive).toBeGreaterThanOrEqual(1);
      }));

    it('cancels a pending poll', () =>
      withQueue(2, async (queue) => {
        const polls = new PollRecorder(async () => null);
        queue.start(polls.handler);
        // The cancelled poll is due first: had the cancel not held, it would have run by the time the
        // later one has. Its delay leaves room for a cold queue's first adds on a loaded machine.
        await queue.schedule('cancelled', 1_500);
        await queue.schedule('kept', 1_700);
        await queue.cancel('cancelled');
        await waitFor(() => polls.callsOf('kept') === 1, { what: 'the other poll', timeoutMs: 10_000 });
        await sleep(300);
        expect(polls.calls).toEqual(['kept']);
      }));

    it('polls nothing once closed', async () => {
      const { queue, close } = await create({ concurrency: 2 });
      const polls = new PollRecorder(async () => null);
      queue.start(polls.handler);
      await queue.close();
      await queue.schedule('after-close', 0);
      await sleep(300);
      await close();
      expect(polls.calls).toEqual([]);
    });
  });
}
