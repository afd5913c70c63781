import { type Job, Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { BullmqPollQueue } from '../../src/state/redis/bullmq-poll-queue.js';
import { oldQueueExists, retireOldQueue } from '../../src/state/redis/plane-migration.js';
import { QueuePlane } from '../../src/state/redis/queue-plane.js';
import { bullConnectionOf } from '../../src/state/redis/redis-client.js';
import { waitFor } from '../support/http.js';
import { redisForReplicas } from '../support/redis-replicas.js';

const logger = createLogger({ level: 'silent', secrets: [] });
const TENANT = 'T0UPGRADE';
const NAMESPACE = `docs-agent:t:${TENANT}`;
const WATCHED = Array.from({ length: 12 }, (_, i) => `job-${i}`);

/**
 * Issue 34, the upgrade at the poll queue: a tenant's polls pending in the old layout (its own queue under
 * `<ns>:bull:polls`, written by the previous BullmqPollQueue) run exactly once after two replicas of the new
 * version start the tenant's view of their planes at the same time, and the old queue is gone.
 */
describe('moving a tenant’s old queues onto the plane', () => {
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
          concurrency: 2,
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

  it('runs every pending poll once when two replicas start the tenant together', async () => {
    // The old version: pending polls due in a moment, no worker running (the deployment was stopped).
    const oldClient = await connect();
    const old = new BullmqPollQueue({ client: oldClient, logger, concurrency: 2, namespace: NAMESPACE });
    for (const jobId of WATCHED) await old.schedule(jobId, 300);
    await old.close();
    expect(await oldQueueExists(oldClient, `${NAMESPACE}:bull`, 'polls')).toBe(true);

    // The new version, two replicas: each its plane, and the tenant's view of it, started at once. Each poll
    // finds its job still running and polls again in a minute: a poll that ended here would let the other
    // replica's reconcile (its watched list read a moment before) schedule it again, as designed.
    const ran: string[] = [];
    const replicas = await twoReplicaViews('upgraded', TENANT, ran);
    // What the poll use case does after every start: the watched jobs' polls are made sure of.
    await Promise.all(replicas.map(({ view }) => view.reconcile(WATCHED, () => 0)));

    await waitFor(() => ran.length >= WATCHED.length, { what: 'every poll', timeoutMs: 10_000 });
    await waitFor(async () => !(await oldQueueExists(oldClient, `${NAMESPACE}:bull`, 'polls')), {
      what: 'the old queue removed',
      timeoutMs: 5_000,
    });
    // Long enough for a duplicate (a second copy of a poll, a poll left in the old queue) to have run.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await closeAll(replicas);
    expect([...ran].sort()).toEqual([...WATCHED].sort());
  });

  it('hands each old job over once when two replicas retire the same old queue at once', async () => {
    const client = await connect();
    const prefix = 'docs-agent:t:T0RETIRE:bull';
    const old = new Queue('health-impact', { connection: bullConnectionOf(client), prefix });
    for (const id of ['a', 'b', 'c', 'd']) await old.add('impact', { id }, { jobId: id, delay: 60_000 });
    await old.close();
    // What the plane would hold: a moved job may run and be removed at once, so re-adding it under the same
    // id would not be refused. Every hand-over is what counts.
    const handedOver: string[] = [];
    const recreate = async (job: Job) => {
      await new Promise((resolve) => setTimeout(resolve, 25));
      handedOver.push(String(job.id));
    };
    const moved = await Promise.all(
      [0, 1].map(() => retireOldQueue({ client, prefix, name: 'health-impact', logger, recreate })),
    );
    expect(handedOver.sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(moved.sort()).toEqual([0, 4]);
    expect(await oldQueueExists(client, prefix, 'health-impact')).toBe(false);
    // The lease went with the retirement: a later old queue of the same name can be retired again.
    expect(await client.exists(`${prefix}:health-impact:retiring`)).toBe(0);
  });

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
