import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import type { ImpactCheck } from '../../src/insights/health/ports.js';
import { BullmqImpactQueue } from '../../src/state/redis/bullmq-impact-queue.js';
import { BullmqPollQueue } from '../../src/state/redis/bullmq-poll-queue.js';
import { waitFor } from '../support/http.js';
import { impactCheck } from '../support/impact-check.js';
import { redisForReplicas } from '../support/redis-replicas.js';
import { singlePlaneView } from '../support/single-plane-view.js';

const logger = createLogger({ level: 'silent', secrets: [] });
const redis = redisForReplicas();

const LOCK_MS = 1_000;
const STALLED_MS = 500;
const timings = { lockDurationMs: LOCK_MS, stalledIntervalMs: STALLED_MS };
/** Every replica's plane, closed after the file (a view's close only unregisters). */
const planes: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const plane of planes) await plane.close();
});

/** A replica's plane (single-workspace mode, as the app builds it in Redis mode), on its own connection. */
async function planeOf(namespace: string, withTimings = false) {
  const client = await redis.replica({ failFast: false });
  const view = singlePlaneView(client, namespace, withTimings ? { timings } : {});
  planes.push(view);
  return { client, plane: view.plane };
}

/** A "replica": its own queueing connection and impact queue, as the app builds them in Redis mode. */
async function replica(namespace: string): Promise<BullmqImpactQueue> {
  return new BullmqImpactQueue({ ...(await planeOf(namespace)), logger, namespace });
}

const check = impactCheck();
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TSX = join(ROOT, 'node_modules/tsx/dist/esm/index.mjs');
const HOLDER = join(ROOT, 'test/support/queue-holder.ts');
/** A replica in its own process that takes the item and hangs; resolves once it holds it. */
async function holdingReplica(namespace: string, kind: 'impact' | 'poll' = 'impact'): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ['--import', TSX, HOLDER, kind, redis.url(), namespace, String(LOCK_MS), String(STALLED_MS)],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  await waitFor(() => output.includes('holding ') || child.exitCode !== null, {
    what: 'a replica holding the check',
    timeoutMs: 30_000,
  });
  if (child.exitCode !== null) throw new Error(`holder exited:\n${output}`);
  return child;
}

async function kill9(child: ChildProcess): Promise<void> {
  const gone = new Promise((resolveExit) => child.once('exit', resolveExit));
  child.kill('SIGKILL');
  await gone;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('BullMQ impact queue', () => {
  it('runs a check enqueued by two replicas once, retries it in place, and never enqueues it again', async () => {
    const a = await replica('ns-impact');
    const b = await replica('ns-impact');
    const runs: Array<{ by: string; attempt: number }> = [];
    // The first try asks to be retried (over budget, docs down); the retry finishes.
    const handler = (by: string) => async (_c: ImpactCheck, attempt: number) => {
      runs.push({ by, attempt });
      return attempt === 0 ? 100 : null;
    };
    a.start(handler('a'));
    b.start(handler('b'));
    await Promise.all([a.enqueue(check, Date.now() + 100), b.enqueue(check, Date.now() + 100)]);
    await waitFor(() => runs.length === 2, { what: 'the try and its retry' });
    expect(runs.map((r) => r.attempt)).toEqual([0, 1]);
    // A later PR of the same job, after the check is done: nothing new runs.
    await a.enqueue(check, Date.now());
    await sleep(500);
    expect(runs).toHaveLength(2);
    await Promise.all([a.close(), b.close()]);
  });

  it('still runs a check whose replica died holding it twice (two deploys)', async () => {
    const namespace = 'ns-stalls';
    const producer = new BullmqImpactQueue({ ...(await planeOf(namespace)), logger, namespace });
    await producer.enqueue({ ...check, jobId: 'job:stalls' }, Date.now());
    // Each holder takes the check (the second after its stall check found the first one's lock gone) and
    // is killed with it.
    await kill9(await holdingReplica(namespace));
    await kill9(await holdingReplica(namespace));
    await producer.close();

    const survivor = new BullmqImpactQueue({ ...(await planeOf(namespace, true)), logger, namespace });
    const runs: string[] = [];
    survivor.start(async (c) => {
      runs.push(c.jobId);
      return null;
    });
    await waitFor(() => runs.length === 1, { what: 'the check after two stalls', timeoutMs: 20_000 });
    expect(runs).toEqual(['job:stalls']);
    await survivor.close();
  }, 90_000);

  it('still polls a job whose replica died holding its poll twice', async () => {
    const namespace = 'ns-poll-stalls';
    const producer = new BullmqPollQueue({ ...(await planeOf(namespace)), logger, namespace });
    await producer.schedule('job:polled', 0);
    await kill9(await holdingReplica(namespace, 'poll'));
    await kill9(await holdingReplica(namespace, 'poll'));
    await producer.close();

    const survivor = new BullmqPollQueue({ ...(await planeOf(namespace, true)), logger, namespace });
    const polls: string[] = [];
    survivor.start(async (jobId) => {
      polls.push(jobId);
      return null;
    });
    await waitFor(() => polls.length === 1, { what: 'the poll after two stalls', timeoutMs: 20_000 });
    expect(polls).toEqual(['job:polled']);
    await survivor.close();
  }, 90_000);
});
