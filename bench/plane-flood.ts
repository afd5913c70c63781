import { connect } from 'node:net';
import { createLogger } from '../src/common/logger.js';
import { planeJobId, QueuePlane } from '../src/state/redis/queue-plane.js';
import { closeRedis, connectRedis, type RedisClient } from '../src/state/redis/redis-client.js';
import { startRedisServer } from '../test/support/redis-server.js';
import { sized } from './smoke.js';
import { fmt, percentile, type Row } from './stats.js';

/**
 * Issue 43 §4's goal on the real plane and a real redis-server: two replicas' planes (production kind
 * options, a cap of 4 per tenant, one shard: every tenant in the same queue, the worst case), one tenant
 * adds 10,000 polls due at once while 20 others each add a poll every second until the flood is drained.
 * A poll takes 5 ms. Reported: the others' delay (started against added), the flooder's throughput, the
 * deferrals, and Redis commands per useful job: those the replicas sent (MONITOR) and every one the
 * server ran, scripts' inner commands included (INFO commandstats), over the polls run.
 */
export interface FloodResult {
  others: { count: number; p50: number; p99: number; max: number };
  floodPerSecond: number;
  floodMs: number;
  /** Commands the replicas sent (round trips) per poll run. */
  commandsPerJob: number;
  /** Every command Redis ran (scripts' inner commands too: INFO commandstats) per poll run. */
  executedPerJob: number;
  deferrals: number;
}

export const FLOOD_GOALS = { othersP99Ms: 1_000, commandsPerJob: 3 };

const FLOOD = sized(10_000, 300);
const OTHERS = sized(20, 3);
const POLL_MS = 5;
const CHUNK = 1_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function commandCalls(client: RedisClient): Promise<number> {
  const info = await client.info('commandstats');
  let calls = 0;
  for (const match of info.matchAll(/^cmdstat_[^:]+:calls=(\d+)/gm)) calls += Number(match[1]);
  return calls;
}

/**
 * Commands the clients sent (round trips), apart from the commands scripts ran inside Redis (which
 * commandstats counts too): a MONITOR connection tells them apart (`[0 lua]`). Stops when `stop` is called.
 */
function monitorSent(url: string): { stop(): Promise<{ sent: number; inScripts: number }> } {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let sent = 0;
  let inScripts = 0;
  let rest = '';
  socket.write('MONITOR\r\n');
  socket.on('data', (chunk: Buffer) => {
    const lines = (rest + chunk.toString('latin1')).split('\r\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.startsWith('+') || line === '+OK') continue;
      if (line.includes(' lua] ')) inScripts++;
      else sent++;
    }
  });
  return {
    stop: async () => {
      socket.destroy();
      return { sent, inScripts };
    },
  };
}

export async function runPlaneFlood(): Promise<FloodResult> {
  const redis = await startRedisServer();
  const logger = createLogger({ level: 'silent', secrets: [] });
  const clients = await Promise.all([0, 1].map(() => connectRedis(redis.url, logger, { failFast: false })));
  let deferrals = 0;
  const planes = clients.map(
    (client) =>
      new QueuePlane({
        ...{ client, logger, prefix: 'bench-flood', perTenantCap: 4, shards: 1 },
        wake: async () => 'served',
        deferred: () => void deferrals++,
      }),
  );
  const delays: number[] = [];
  let floodLeft = FLOOD;
  let floodDoneAt = 0;
  const others = Array.from({ length: OTHERS }, (_, i) => `T0OTHER${i}`);
  for (const plane of planes) {
    plane.register('polls', 'T0FLOOD', async () => {
      await sleep(POLL_MS);
      if (--floodLeft === 0) floodDoneAt = Date.now();
    });
    for (const tenant of others)
      plane.register('polls', tenant, async (job) => {
        delays.push(Date.now() - (job.data as { addedAt: number }).addedAt);
        await sleep(POLL_MS);
      });
  }
  const monitor = monitorSent(redis.url);
  const callsBefore = await commandCalls(clients[0]!);
  const started = Date.now();
  const floodQueue = planes[0]!.queue('polls', 'T0FLOOD');
  for (let i = 0; i < FLOOD; i += CHUNK)
    await floodQueue.addBulk(
      Array.from({ length: Math.min(CHUNK, FLOOD - i) }, (_, j) => ({
        name: 'poll',
        data: { tenant: 'T0FLOOD', jobId: `f${i + j}`, addedAt: started },
        opts: { jobId: planeJobId('poll', 'T0FLOOD', `f${i + j}`), removeOnComplete: true },
      })),
    );
  // Each other tenant adds one poll a second (spread over the second), from the replica it alternates on.
  let added = 0;
  const deadline = Date.now() + 10 * 60_000;
  for (let second = 0; floodLeft > 0 && Date.now() < deadline; second++) {
    for (const [t, tenant] of others.entries()) {
      await sleep(1_000 / OTHERS);
      const id = `s${second}`;
      const queue = planes[(second + t) % 2]!.queue('polls', tenant);
      await queue.add(
        'poll',
        { tenant, jobId: id, addedAt: Date.now() },
        { jobId: planeJobId('poll', tenant, id), removeOnComplete: true },
      );
      added++;
    }
  }
  while (delays.length < added && Date.now() < deadline) await sleep(50);
  const calls = (await commandCalls(clients[0]!)) - callsBefore;
  const { sent } = await monitor.stop();
  for (const plane of planes) await plane.close();
  for (const client of clients) await closeRedis(client);
  await redis.stop();
  const floodMs = (floodDoneAt || Date.now()) - started;
  return {
    others: {
      count: delays.length,
      p50: percentile(delays, 50),
      p99: percentile(delays, 99),
      max: Math.max(...delays),
    },
    floodPerSecond: (FLOOD / floodMs) * 1000,
    floodMs,
    commandsPerJob: sent / (FLOOD + delays.length),
    executedPerJob: calls / (FLOOD + delays.length),
    deferrals,
  };
}

export function floodRows(r: FloodResult): Row[] {
  return [
    {
      measure: `others' poll delay p50 / p99 / max (${r.others.count} polls)`,
      value: `${fmt(r.others.p50, 0)} / ${fmt(r.others.p99, 0)} / ${fmt(r.others.max, 0)} ms`,
      goal: `p99 ≤ ${FLOOD_GOALS.othersP99Ms} ms`,
      verdict: r.others.p99 <= FLOOD_GOALS.othersP99Ms ? 'met' : 'NOT MET',
    },
    {
      measure: `the flooder's throughput (${FLOOD.toLocaleString('en-US')} polls)`,
      value: `${fmt(r.floodPerSecond, 0)} polls/s (${fmt(r.floodMs / 1000)} s)`,
      goal: 'cap 4 × 5 ms: ≤ 800/s',
      verdict: '',
    },
    {
      measure: 'Redis commands sent per useful job (round trips; MONITOR)',
      value: `${fmt(r.commandsPerJob)} (${fmt(r.executedPerJob)} run inside Redis, scripts' commands included)`,
      goal: `≤ ${FLOOD_GOALS.commandsPerJob}`,
      verdict: r.commandsPerJob <= FLOOD_GOALS.commandsPerJob ? 'met' : 'NOT MET',
    },
    {
      measure: 'jobs taken and moved back (deferrals)',
      value: String(r.deferrals),
      goal: '0',
      verdict: r.deferrals === 0 ? 'met' : 'NOT MET',
    },
  ];
}
