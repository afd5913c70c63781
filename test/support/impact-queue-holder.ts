/**
 * A replica that takes an impact check and never finishes it, until the test kills it (kill -9): run as
 * `node --import tsx test/support/impact-queue-holder.ts <redisUrl> <namespace> <lockMs> <stalledMs>`.
 * Prints `holding <jobId> <attempt>` when its handler has the check.
 */
import { createLogger } from '../../src/common/logger.js';
import { BullmqImpactQueue } from '../../src/state/redis/bullmq-impact-queue.js';
import { connectRedis } from '../../src/state/redis/redis-client.js';

const [url = '', namespace = '', lockMs = '1000', stalledMs = '500'] = process.argv.slice(2);
const logger = createLogger({ level: 'silent', secrets: [] });
const client = await connectRedis(url, logger, { failFast: false });
const queue = new BullmqImpactQueue({
  client,
  logger,
  namespace,
  lockDurationMs: Number(lockMs),
  stalledIntervalMs: Number(stalledMs),
});
queue.start(async (check, attempt) => {
  process.stdout.write(`holding ${check.jobId} ${attempt}\n`);
  return new Promise<number | null>(() => undefined);
});
process.stdout.write('ready\n');
