import { randomUUID } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { BullmqAlertScheduler } from '../../src/state/redis/bullmq-alert-scheduler.js';
import { shardPrefix } from '../../src/state/redis/plane-shards.js';
import {
  type DeferralReason,
  type PlaneKind,
  planeJobId,
  QueuePlane,
  type QueuePlaneOptions,
  type WakeResult,
} from '../../src/state/redis/queue-plane.js';
import { bullConnectionOf, type RedisClient } from '../../src/state/redis/redis-client.js';
import { waitFor } from '../support/http.js';
import { redisForReplicas } from '../support/redis-replicas.js';

const logger = createLogger({ level: 'silent', secrets: [] });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Issue 43 §4 for the kinds that kept BullMQ's take until now (impact checks, weekly posts, alert checks):
 * a tenant's flood never puts another tenant's job behind more than a cap's worth of its own per replica,
 * none is taken and moved back for its tenant's cap, the kind's backlog still shows in the plane's stats,
 * and a job scheduler taken by the fair take fires each occurrence once with two replicas racing, also
 * when its job is moved back (its tenant's view not registered yet) and taken again.
 */
describe('impact, weekly and alerts on the fair take', () => {
  const redis = redisForReplicas();
  let client: RedisClient;
  const planes: QueuePlane[] = [];
  const stops: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    client = await redis.replica({ failFast: false });
  });
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
    await Promise.all(planes.splice(0).map((plane) => plane.close()));
  });

  const plane = (prefix: string, deferrals: DeferralReason[], wake: QueuePlaneOptions['wake']) => {
    const made = new QueuePlane({
      ...{ client, logger, prefix, perTenantCap: 2, shards: 1, wake },
      timings: { lockDurationMs: 1_000, stalledIntervalMs: 500 },
      concurrency: { impact: 4, weekly: 4, alerts: 4 },
      deferred: (_kind, reason) => void deferrals.push(reason),
    });
    planes.push(made);
    return made;
  };

  it.each<PlaneKind>(['impact', 'alerts', 'weekly'])(
    '%s: another tenant’s job starts after at most a cap’s worth of a flooding tenant’s per replica, none deferred',
    async (kind) => {
      const prefix = `plane-kinds-${kind}-${randomUUID()}`;
      const deferrals: DeferralReason[] = [];
      const started: string[] = [];
      const replicas = [0, 1].map(() => plane(prefix, deferrals, async () => 'served'));
      let floodRunning = 0;
      let floodMost = 0;
      for (const replica of replicas) {
        replica.register(kind, 'T0FLOOD', async () => {
          started.push('flood');
          floodMost = Math.max(floodMost, ++floodRunning);
          await sleep(5);
          floodRunning--;
        });
        replica.register(kind, 'T0QUIET', async () => void started.push('quiet'));
      }
      const job = (tenant: string, id: string) => ({
        name: kind,
        data: { tenant },
        opts: { jobId: planeJobId(kind, tenant, id), removeOnComplete: true },
      });
      await replicas[0]!
        .queue(kind, 'T0FLOOD')
        .addBulk(Array.from({ length: 300 }, (_, i) => job('T0FLOOD', `f${i}`)));
      await waitFor(() => started.length >= 20, { what: 'the flood under way' });
      // The kind's backlog and its oldest waiting job still show for /metrics.
      const [stats] = (await replicas[0]!.queues.stats()).filter((s) => s.kind === kind);
      expect(stats!.depth).toBeGreaterThan(0);
      expect(stats!.oldestWaitingMs).toBeGreaterThan(0);
      const before = started.length;
      const quiet = job('T0QUIET', 'q');
      await replicas[1]!.queue(kind, 'T0QUIET').add(kind, quiet.data, quiet.opts);
      await waitFor(() => started.includes('quiet'), { what: 'the quiet tenant’s job', timeoutMs: 20_000 });
      const ahead = started.indexOf('quiet') - before;
      await waitFor(() => started.length === 301, { what: 'the whole flood', timeoutMs: 60_000 });
      expect({ ahead, floodMost, deferred: deferrals.length }).toEqual({
        ahead: expect.toSatisfy((n: number) => n <= 4),
        floodMost: expect.toSatisfy((n: number) => n <= 2),
        deferred: 0,
      });
    },
    90_000,
  );

  it('an alert check fires once per interval with two replicas racing, also when its job was moved back first', async () => {
    const prefix = `plane-kinds-alerts-${randomUUID()}`;
    const deferrals: DeferralReason[] = [];
    const ticks: number[] = [];
    const views = new Map<QueuePlane, BullmqAlertScheduler>();
    const woken = new Map<QueuePlane, number>();
    const view = (on: QueuePlane) =>
      new BullmqAlertScheduler({ client, logger, intervalMs: 300, plane: { plane: on, tenant: 'T1' } });
    // Each replica's first wake serves the tenant but registers nothing (its scope still starting): the
    // check's job is moved back and taken again, and must not leave a second next occurrence behind.
    const wake = (self: () => QueuePlane) => async (): Promise<WakeResult> => {
      const me = self();
      woken.set(me, (woken.get(me) ?? 0) + 1);
      if (woken.get(me)! > 1 && !views.has(me)) {
        const v = view(me);
        views.set(me, v);
        await v.start(async (tickMs) => void ticks.push(tickMs));
        stops.push(() => v.stop());
      }
      return 'served';
    };
    const a: QueuePlane = plane(
      prefix,
      deferrals,
      wake(() => a),
    );
    const b: QueuePlane = plane(
      prefix,
      deferrals,
      wake(() => b),
    );
    a.start();
    b.start();
    const scope = view(a);
    await scope.arm();
    await waitFor(() => views.size === 2 && ticks.length >= 4, { what: 'alert checks', timeoutMs: 30_000 });
    expect(deferrals).toContain('unregistered');
    // Once the moved-back jobs ran, one next occurrence waits in Redis (a job taken twice renewed once)…
    const scheduled = async () =>
      (await a.queue('alerts', 'T1').getJobs(['delayed', 'waiting', 'prioritized'])).filter(
        (job) => job.repeatJobKey,
      ).length;
    await waitFor(async () => (await scheduled()) === 1, { what: 'one next occurrence', timeoutMs: 10_000 });
    // …and from then on each interval fires once: no tick twice, no more checks than intervals passed.
    const from = ticks.length;
    const since = Date.now();
    await waitFor(() => ticks.length >= from + 5, { what: 'five more alert checks', timeoutMs: 30_000 });
    expect(new Set(ticks).size).toBe(ticks.length);
    expect(ticks.length - from).toBeLessThanOrEqual(Math.floor((Date.now() - since) / 300) + 2);
    await scope.disarm();
  }, 60_000);

  it('runs in place what BullMQ’s take left: a schedule whose job a dead replica’s Worker held, a check due', async () => {
    const prefix = `plane-kinds-upgrade-${randomUUID()}`;
    const connection = bullConnectionOf(client);
    const at = (kind: PlaneKind) => ({ connection, prefix: shardPrefix(prefix, kind, 0) });
    // Written and taken as before the change: a BullMQ Worker takes the schedule's job (renewing it) and its
    // replica dies holding it (the Worker closed without ending it: its lock lapses).
    const alerts = new Queue('alerts', at('alerts'));
    const impact = new Queue('impact', at('impact'));
    const every = 400;
    await alerts.upsertJobScheduler(
      planeJobId('alerts', 'T0OLD', 'check'),
      { every },
      { name: 'check', data: { tenant: 'T0OLD' }, opts: { removeOnComplete: true, attempts: 1 } },
    );
    await impact.add(
      'impact',
      { tenant: 'T0OLD' },
      { jobId: planeJobId('impact', 'T0OLD', 'c'), delay: 300 },
    );
    let held: string | undefined;
    const old = new Worker(
      'alerts',
      (job) => {
        held = job.id;
        return new Promise<void>(() => undefined);
      },
      // The plane's timings (its stalled check throttles every replica's to one per interval).
      { ...at('alerts'), lockDuration: 1_000, stalledInterval: 500 },
    );
    await waitFor(() => held !== undefined, { what: 'the old Worker holding the check' });
    await old.close(true);
    await Promise.all([alerts.close(), impact.close()]);

    const ran: string[] = [];
    let checks = 0;
    for (const replica of [0, 1].map(() => plane(prefix, [], async () => 'served'))) {
      replica.register('alerts', 'T0OLD', async (job) => void ran.push(String(job.id)));
      replica.register('impact', 'T0OLD', async () => void checks++);
      replica.start();
    }
    // The held check runs again once its lock lapsed (the stalled check), the schedule goes on firing.
    await waitFor(() => ran.includes(held!) && ran.length >= 4 && checks === 1, {
      what: 'the schedule and the check',
      timeoutMs: 30_000,
    });
    expect(new Set(ran).size).toBe(ran.length);
    expect(checks).toBe(1);
  }, 60_000);
});
