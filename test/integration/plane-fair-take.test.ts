import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { type DeferralReason, planeJobId, QueuePlane } from '../../src/state/redis/queue-plane.js';
import type { RedisClient } from '../../src/state/redis/redis-client.js';
import { waitFor } from '../support/http.js';
import { redisForReplicas } from '../support/redis-replicas.js';

const logger = createLogger({ level: 'silent', secrets: [] });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TSX = join(ROOT, 'node_modules/tsx/dist/esm/index.mjs');
const HOLDER = join(ROOT, 'test/support/queue-holder.ts');

/**
 * Issue 43 §4: polls are taken fairly by scheduling. A tenant's flood never puts another tenant's poll
 * behind more than a few of its own jobs (counted in jobs started, not in time); no job is taken and moved
 * back for its tenant's cap or ceiling; a job whose replica was killed mid-run runs again, once.
 */
describe('the fair take of the queue plane', () => {
  const redis = redisForReplicas();
  let client: RedisClient;
  const planes: QueuePlane[] = [];
  const children: ChildProcess[] = [];
  let run = 0;

  beforeAll(async () => {
    client = await redis.replica({ failFast: false });
  });
  afterEach(async () => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    await Promise.all(planes.splice(0).map((plane) => plane.close()));
  });

  const plane = (prefix: string, deferrals: DeferralReason[] = [], cap = 2) => {
    const made = new QueuePlane({
      ...{ client, logger, prefix, perTenantCap: cap, shards: 1 },
      concurrency: { polls: 4 },
      wake: async () => 'served',
      deferred: (_kind, reason) => void deferrals.push(reason),
    });
    planes.push(made);
    return made;
  };
  const poll = (tenant: string, id: string) => ({
    name: 'poll',
    data: { tenant, jobId: id },
    opts: { jobId: planeJobId('poll', tenant, id), removeOnComplete: true },
  });

  it('starts another tenant’s poll after at most a cap’s worth of a flooding tenant’s, deferring none', async () => {
    const prefix = `plane-fair-${++run}-${Date.now()}`;
    const deferrals: DeferralReason[] = [];
    const started: string[] = [];
    const replicas = [plane(prefix, deferrals), plane(prefix, deferrals)];
    let floodRunning = 0;
    let floodMost = 0;
    for (const replica of replicas) {
      replica.register('polls', 'T0FLOOD', async () => {
        started.push('flood');
        floodMost = Math.max(floodMost, ++floodRunning);
        await sleep(5);
        floodRunning--;
      });
      replica.register('polls', 'T0QUIET', async () => void started.push('quiet'));
    }
    const flood = Array.from({ length: 600 }, (_, i) => poll('T0FLOOD', `f${i}`));
    await replicas[0]!.queue('polls', 'T0FLOOD').addBulk(flood);
    await waitFor(() => started.length >= 20, { what: 'the flood under way' });
    const before = started.length;
    const quiet = poll('T0QUIET', 'q');
    await replicas[1]!.queue('polls', 'T0QUIET').add('poll', quiet.data, quiet.opts);
    await waitFor(() => started.includes('quiet'), { what: 'the quiet tenant’s poll', timeoutMs: 20_000 });
    // Flood jobs started after the quiet poll was added and before it: the take skips the flooder at its
    // cap (2), so at most a cap's worth per replica get ahead of it (take-and-defer let hundreds).
    const ahead = started.indexOf('quiet') - before;
    expect(ahead).toBeLessThanOrEqual(4);
    await waitFor(() => started.length === 601, { what: 'the whole flood', timeoutMs: 60_000 });
    expect(floodMost).toBeLessThanOrEqual(2);
    expect(deferrals.filter((reason) => reason === 'cap' || reason === 'rate')).toEqual([]);
  }, 90_000);

  it('runs a poll again, once, after the replica running it was killed', async () => {
    const prefix = `plane-fair-${++run}-${Date.now()}`;
    const child = spawn(process.execPath, ['--import', TSX, HOLDER, 'plane', redis.url(), prefix, '0', '0'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    await waitFor(() => output.includes('ready') || child.exitCode !== null, {
      what: 'the holding replica',
      timeoutMs: 30_000,
    });
    const survivor = plane(prefix);
    const queue = survivor.queue('polls', 'T0HELD');
    const { opts, data } = poll('T0HELD', 'once');
    await queue.add('poll', data, opts);
    await waitFor(() => output.includes('holding ') || child.exitCode !== null, {
      what: 'the poll held by the other replica',
      timeoutMs: 30_000,
    });
    expect(child.exitCode).toBeNull();
    const gone = new Promise((resolveExit) => child.once('exit', resolveExit));
    child.kill('SIGKILL');
    await gone;
    const ran: string[] = [];
    survivor.register('polls', 'T0HELD', async (job) => void ran.push(String(job.data.jobId)));
    // Its lock lapses, the stalled check hands it back, and the fair take gives it to this replica.
    await waitFor(() => ran.length > 0, { what: 'the poll run again', timeoutMs: 40_000 });
    await waitFor(async () => (await queue.getJob(opts.jobId)) === undefined, { what: 'it completed' });
    expect(ran).toEqual(['once']);
  }, 90_000);
});
