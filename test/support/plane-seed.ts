import { planeJobId, type QueuePlane } from '../../src/state/redis/queue-plane.js';

type Kind = Parameters<QueuePlane['queue']>[0];

/** For each tenant, a job of `kind` due now and one an hour away (named `name`), as a busy deployment holds. */
export async function addNowAndLater(
  plane: QueuePlane,
  kind: Kind,
  name: string,
  tenants: string[],
): Promise<void> {
  for (const tenant of tenants)
    for (const [id, delay] of [
      ['now', 0],
      ['later', 3_600_000],
    ] as const)
      await plane
        .queue(kind, tenant)
        .add(
          name,
          { tenant, jobId: id, dueAt: Date.now() + delay },
          { jobId: planeJobId(name, tenant, id), delay, removeOnComplete: true },
        );
}
