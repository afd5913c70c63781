import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { BullmqPollQueue } from '../../src/state/redis/bullmq-poll-queue.js';
import { QueuePlane } from '../../src/state/redis/queue-plane.js';
import { waitFor } from '../support/http.js';
import { redisForReplicas } from '../support/redis-replicas.js';

const logger = createLogger({ level: 'silent', secrets: [] });
/**
 * Two replicas' views of one tenant's polls on the plane: a reconcile never pulls a poll another replica
 * added meanwhile. (Moving the old layout's queues is the deployment migration's: migrations.test.ts.)
 */
describe('a tenant’s poll views on two replicas', () => {
  const redis = redisForReplicas();
  const connect = () => redis.replica({ failFast: false });

  /** Two replicas' planes and a tenant's poll view on each, started: every poll is recorded in `ran`. */
  const twoReplicaViews = (prefix: string, tenant: string, ran: string[]) =>
    Promise.all(
      ['a', 'b'].map(async () => {
        const client = await connect();
        const plane = new QueuePlane({ client, logger, wake: async () => 'served', prefix });
        const view = new BullmqPollQueue({
          client,
          logger,
          namespace: `docs-agent:t:${tenant}`,
          plane: { plane, tenant },
        });
        view.start(async (jobId) => {
          ran.push(jobId);
          return 60_000; // still running: polled again in a minute
        });
        return { plane, view };
      }),
    );
  const closeAll = async (replicas: Array<{ plane: QueuePlane; view: BullmqPollQueue }>) => {
    for (const { view, plane } of replicas) {
      await view.close();
      await plane.close();
    }
  };

  it('a reconcile that looked before another replica added the poll leaves that poll alone', async () => {
    const ran: string[] = [];
    const [a, b] = await twoReplicaViews('stale-look', 'T0LOOK', ran);
    // Replica A makes sure of the poll, and it runs (then waits a minute).
    await a!.view.reconcile(['job-x'], () => 0);
    await waitFor(() => ran.length >= 1, { what: 'the first poll' });
    // Replica B's look found no poll (it looked before A added it), so it goes on to add one.
    const shared = b!.plane.queue('polls', 'T0LOOK');
    const getJob = shared.getJob.bind(shared);
    shared.getJob = async () => {
      shared.getJob = getJob; // only that first look was stale
      return undefined;
    };
    await b!.view.reconcile(['job-x'], () => 0);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await closeAll([a!, b!]);
    // Before: B's add went through schedule(), which pulls a pending poll earlier, and the job ran again.
    expect(ran).toEqual(['job-x']);
  });
});
