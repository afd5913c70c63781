import { describe, expect, it } from 'vitest';
import type { ParkedJobs } from '../../src/state/parked-jobs.js';

/** The `ParkedJobs` contract (issue 43): every implementation must pass these same tests. */
export function parkedJobsContract(create: () => Promise<{ parked: ParkedJobs; close(): Promise<void> }>) {
  async function withStore(test: (parked: ParkedJobs) => Promise<void>) {
    const { parked, close } = await create();
    try {
      await test(parked);
    } finally {
      await close();
    }
  }

  describe('ParkedJobs contract', () => {
    it("keeps each tenant's parked jobs apart, once each, and hands them over with the set emptied", () =>
      withStore(async (parked) => {
        expect(await parked.has('T0A')).toBe(false);
        await parked.park('T0A', 'polls', 'poll-T0A-1');
        await parked.park('T0A', 'polls', 'poll-T0A-1');
        await parked.park('T0A', 'pr-follow', 'poll-T0A-1');
        await parked.park('T0B', 'polls', 'poll-T0B-9');
        expect(await parked.has('T0A')).toBe(true);
        const taken = await parked.take('T0A');
        expect(taken.sort((a, b) => a.kind.localeCompare(b.kind))).toEqual([
          { kind: 'polls', id: 'poll-T0A-1' },
          { kind: 'pr-follow', id: 'poll-T0A-1' },
        ]);
        expect(await parked.has('T0A')).toBe(false);
        expect(await parked.take('T0A')).toEqual([]);
        expect(await parked.take('T0B')).toEqual([{ kind: 'polls', id: 'poll-T0B-9' }]);
      }));

    it('gives a tenant’s jobs to only one of two takers at the same time', () =>
      withStore(async (parked) => {
        for (let i = 0; i < 20; i++) await parked.park('T0C', 'polls', `poll-T0C-${i}`);
        const [a, b] = await Promise.all([parked.take('T0C'), parked.take('T0C')]);
        expect(a.length + b.length).toBe(20);
        expect(Math.min(a.length, b.length)).toBe(0);
      }));
  });
}
