/**
 * A replica that takes a queued item (an impact check, or a poll) and never finishes it, until the test
 * kills it (kill -9): run as
 * `node --import tsx test/support/queue-holder.ts <impact|poll|plane> <redisUrl> <namespace> <lockMs> <stalledMs>`
 * (plane: a queue plane replica, `namespace` its prefix, taking tenant T0HELD's polls; the kind's timings).
 * Prints `holding <jobId>` when its handler has the item.
 */
import { createLogger } from '../../src/common/logger.js';
import { BullmqImpactQueue } from '../../src/state/redis/bullmq-impact-queue.js';
import { BullmqPollQueue } from '../../src/state/redis/bullmq-poll-queue.js';
import { QueuePlane } from '../../src/state/redis/queue-plane.js';
import { connectRedis } from '../../src/state/redis/redis-client.js';
import { singlePlaneView } from './single-plane-view.js';

const [kind = 'impact', url = '', namespace = '', lockMs = '1000', stalledMs = '500'] = process.argv.slice(2);
const logger = createLogger({ level: 'silent', secrets: [] });
const client = await connectRedis(url, logger, { failFast: false });
const timings = { lockDurationMs: Number(lockMs), stalledIntervalMs: Number(stalledMs) };
const { plane } = singlePlaneView(client, namespace, { pollConcurrency: 1, timings });
const hang = <T>(jobId: string) => {
  process.stdout.write(`holding ${jobId}\n`);
  return new Promise<T>(() => undefined);
};
if (kind === 'plane') {
  const replica = new QueuePlane({
    client,
    logger,
    prefix: namespace,
    shards: 1,
    wake: async () => 'served',
  });
  replica.register('polls', 'T0HELD', (job) => hang(String(job.id)));
} else if (kind === 'poll') {
  new BullmqPollQueue({ client, logger, namespace, plane }).start((jobId) => hang(jobId));
} else {
  new BullmqImpactQueue({ client, logger, namespace, plane }).start((check) => hang(check.jobId));
}
process.stdout.write('ready\n');
