import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { ReconcilePlane } from '../../src/composition/oauth/reconcile-plane.js';
import { type AffinityBatch, type HoldsView, ReplicaHolds } from '../../src/state/redis/plane-affinity.js';

/**
 * Issue 43 "no thrash": a scope built here is recorded as held in the due index's slot at once (a claim of
 * none), not at the next run's claim, which waits while a run is under way; at stop its holds are let go.
 */
describe('the due index reconcile and this replica’s holds', () => {
  const logger = createLogger({ level: 'silent', secrets: [] });

  it('writes a new hold at once, one call per burst, and lets every hold go at stop', async () => {
    const calls: Array<{ limit: number; batch: AffinityBatch | undefined }> = [];
    const holds = new ReplicaHolds();
    const plane = new ReconcilePlane({
      index: {
        claim: async (limit: number, _ms: number, view?: HoldsView) => {
          calls.push({ limit, batch: view?.batch(Date.now()) });
          return [];
        },
        settle: async () => true,
      },
      wake: async () => 'served',
      agentOf: () => undefined,
      now: () => Date.now(),
      logger,
      holds: (changed) => holds.view(() => true, changed),
    });
    holds.set('T0A', true);
    holds.set('T0B', true);
    await expect.poll(() => calls.length).toBe(1);
    expect(calls[0]).toMatchObject({ limit: 0, batch: { hold: ['T0A', 'T0B'] } });
    await plane.stop();
    expect(calls.at(-1)).toMatchObject({ limit: 0, batch: { hold: [], unhold: ['T0A', 'T0B'] } });
  });
});
