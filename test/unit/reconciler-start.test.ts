import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { Reconciler, type ReconcileTask } from '../../src/delivery/reconciler.js';

const logger = createLogger({ level: 'silent', secrets: [] });

function tasks(ran: string[]): ReconcileTask[] {
  const task = (name: string, indexed: boolean): ReconcileTask => ({
    name,
    everyMs: 5_000,
    indexed,
    run: async () => void ran.push(name),
  });
  return [task('deliveries', true), task('sweep', false)];
}

const ticker = (indexed: boolean) => ({ every: () => () => undefined, indexed });

/**
 * Issue 43 "no tenant start": where a due index names a scope when it has work (OAuth mode on Redis), a
 * scope's start runs none of its indexed tasks (the index's look runs them; a scope built for its due work
 * ran them twice). Everywhere else the start is still one pass of every task.
 */
describe('Reconciler: the start-up pass', () => {
  it('with a due index, runs only the tasks the index does not find', async () => {
    const ran: string[] = [];
    const reconciler = new Reconciler(tasks(ran), logger, ticker(true));
    expect(reconciler.indexed).toBe(true);
    await reconciler.runOnce();
    expect(ran).toEqual(['sweep']);
    await reconciler.runIndexed();
    expect(ran).toEqual(['sweep', 'deliveries']);
  });

  it('without one (single-workspace mode, OAuth mode in memory), runs every task', async () => {
    for (const periodic of [undefined, ticker(false)]) {
      const ran: string[] = [];
      const reconciler = new Reconciler(tasks(ran), logger, periodic);
      expect(reconciler.indexed).toBe(false);
      await reconciler.runOnce();
      expect(ran.sort()).toEqual(['deliveries', 'sweep']);
    }
  });
});
