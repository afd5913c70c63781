import type { RedisServer } from '../test/support/redis-server.js';
import type { FakesProcess } from './fakes-process.js';
import { sized } from './smoke.js';
import { fmt, median, percentile, type Row, seededRandom } from './stats.js';
import { connectProject, type OAuthBenchApp, startOAuthBenchApp } from './tenant-apps.js';
import type { TenantCallCounts } from './tenant-fakes.js';

const INSTALLS = sized(10, 2);
const ISOLATION_S = sized(20, 2);
/** The measured tenant's instructions (each one job, its card the reply) and the stormed tenant's, per second. */
const CALM_PER_S = 4;
const STORM_PER_S = 4;
/** What Slack's 429 says to wait: the shortest, so the stormed tenant's retries are as busy as they get. */
const RETRY_AFTER_S = 1;
const POLL_MS = 25;
/**
 * Users and channels the instructions come from, in turn: the app paces posts to one channel at Slack's
 * 1 per second, so a single channel would measure that queue, not the tenants' isolation.
 */
const spread = (tag: string, i: number) => ({ user: `U0${tag}${i % 20}`, channel: `C0${tag}${i % 20}` });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends `help` for `team` every POLL_MS until it is answered: when (Date.now()) the answer arrived. */
async function firstServed(app: OAuthBenchApp, team: string, timeoutMs = 15_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if ((await app.command(team, 'help')).includes('/docs-agent')) return Date.now();
    if (Date.now() > deadline) throw new Error(`${team} was not served within ${timeoutMs} ms`);
    await sleep(POLL_MS);
  }
}

export interface InstallSummary {
  /** ms from the install's success page to the first answer, per case: p50 and worst. */
  p50: Record<string, number>;
  max: Record<string, number>;
}

export const SAME_REPLICA = 'same replica (memory mode), first command right away';
export const OTHER_REPLICA = 'second replica (Redis mode), first command right away';

/** Item 3: from the install callback to the new tenant's first served request, here and on another replica. */
export async function runInstallToServed(
  fakes: FakesProcess,
  redis: RedisServer,
): Promise<{ rows: Row[]; summary: InstallSummary }> {
  const rows: Row[] = [];
  const summary: InstallSummary = { p50: {}, max: {} };
  const random = seededRandom(27);
  let team = 0;
  const next = () => ({ teamId: `T0NEW${String(team++).padStart(4, '0')}`, teamName: `New ${team}` });
  const record = (label: string, times: number[], callbackMs: number[]) => {
    summary.p50[label] = median(times);
    summary.max[label] = Math.max(...times);
    rows.push({
      case: label,
      installs: times.length,
      'p50 (ms)': fmt(median(times), 0),
      'max (ms)': fmt(Math.max(...times), 0),
      'callback itself p50 (ms)': fmt(median(callbackMs), 0),
    });
  };
  const memory = await startOAuthBenchApp(fakes);
  try {
    const times: number[] = [];
    const callbacks: number[] = [];
    for (let i = 0; i < INSTALLS; i++) {
      const install = next();
      const { doneAt, callbackMs } = await memory.install(install);
      times.push((await firstServed(memory, install.teamId)) - doneAt);
      callbacks.push(callbackMs);
    }
    record(SAME_REPLICA, times, callbacks);
  } finally {
    await memory.stop();
  }
  const a = await startOAuthBenchApp(fakes, { REDIS_URL: redis.url });
  const b = await startOAuthBenchApp(fakes, { REDIS_URL: redis.url });
  try {
    // Since issue 34 a replica builds a scope only when something names its tenant (no idle case).
    for (const label of [OTHER_REPLICA]) {
      const times: number[] = [];
      const callbacks: number[] = [];
      for (let i = 0; i < INSTALLS; i++) {
        // A random phase against the replicas' 2 s sync timer.
        await sleep(random() * sized(2_000, 200));
        const install = next();
        const { doneAt, callbackMs } = await a.install(install);
        times.push((await firstServed(b, install.teamId)) - doneAt);
        callbacks.push(callbackMs);
      }
      record(label, times, callbacks);
    }
  } finally {
    await a.stop();
    await b.stop();
  }
  return { rows, summary };
}

export interface IsolationSummary {
  /** The calm tenant's command → card time (ms), without and with the other tenant's 429 storm. */
  p50: { baseline: number; storm: number };
  p99: { baseline: number; storm: number };
  lost: number;
  /** 429s given to the stormed tenant, and to the calm one (must be 0). */
  stormLimited: number;
  calmLimited: number;
}

const STORM = 'T0STORM';
const CALM = 'T0CALM';

/** Item 4: one tenant's reply time while another's every Slack call answers 429. */
export async function runIsolation(
  fakes: FakesProcess,
  redis: RedisServer,
): Promise<{ rows: Row[]; summary: IsolationSummary }> {
  await fakes.send({ cmd: 'configure', latencyMs: 50, jobsPerHour: null });
  const app = await startOAuthBenchApp(fakes, { REDIS_URL: redis.url, AGENT_JOBS_PER_HOUR: '1000000' });
  const summary: IsolationSummary = {
    p50: { baseline: 0, storm: 0 },
    p99: { baseline: 0, storm: 0 },
    lost: 0,
    stormLimited: 0,
    calmLimited: 0,
  };
  const rows: Row[] = [];
  try {
    for (const team of [STORM, CALM]) {
      await app.install({ teamId: team, teamName: team });
      const project = {
        projectId: `proj_${team.toLowerCase()}`,
        apiKey: `svc_${team.toLowerCase()}_key_0123456789abcdef`,
      };
      await fakes.send({ cmd: 'addProject', ...project });
      await connectProject(redis.url, team, project);
    }
    // Connected once `list` no longer answers "an admin must run /docs-agent connect".
    for (const team of [STORM, CALM]) {
      const deadline = Date.now() + 15_000;
      while ((await app.command(team, 'list')).includes('/docs-agent connect')) {
        if (Date.now() > deadline) throw new Error(`${team}'s project was never picked up`);
        await sleep(100);
      }
    }
    let seq = 0;
    const phase = async (name: 'baseline' | 'storm') => {
      const latencies: number[] = [];
      let lost = 0;
      const pending: Promise<void>[] = [];
      const started = Date.now();
      const stormEvery = 1000 / STORM_PER_S;
      const calmEvery = 1000 / CALM_PER_S;
      let nextStorm = started;
      let nextCalm = started;
      while (Date.now() - started < ISOLATION_S * 1000) {
        const now = Date.now();
        if (now >= nextStorm) {
          nextStorm += stormEvery;
          const i = seq++;
          pending.push(
            app.command(STORM, `Document storm change ${i}`, spread('S', i)).then(() => undefined),
          );
        }
        if (now >= nextCalm) {
          nextCalm += calmEvery;
          const i = seq++;
          const marker = `bench-mark-${name}-${i}`;
          pending.push(
            (async () => {
              const sent = Date.now();
              await app.command(CALM, `Document ${marker}`, spread('C', i));
              const at = await fakes.send<number | null>({
                cmd: 'waitPost',
                tenant: CALM,
                marker,
                timeoutMs: 30_000,
              });
              if (at === null) lost += 1;
              else latencies.push(at - sent);
            })(),
          );
        }
        await sleep(5);
      }
      await Promise.all(pending);
      summary.p50[name] = median(latencies);
      summary.p99[name] = percentile(latencies, 99);
      summary.lost += lost;
      rows.push({
        phase:
          name === 'baseline'
            ? `no storm (${STORM} busy, answered)`
            : `${STORM}: every call 429, Retry-After ${RETRY_AFTER_S} s`,
        [`${CALM} replies`]: latencies.length,
        lost,
        'p50 (ms)': fmt(median(latencies), 1),
        'p99 (ms)': fmt(percentile(latencies, 99), 1),
        'max (ms)': fmt(Math.max(...latencies), 1),
      });
    };
    await phase('baseline');
    await fakes.send({ cmd: 'storm', tenant: STORM, retryAfterS: RETRY_AFTER_S });
    await phase('storm');
    await fakes.send({ cmd: 'storm', tenant: null, retryAfterS: 0 });
    const counts = await fakes.send<TenantCallCounts>({ cmd: 'tenantCalls' });
    summary.stormLimited = counts.limited[STORM] ?? 0;
    summary.calmLimited = counts.limited[CALM] ?? 0;
    rows.push({
      phase: `(429s: ${summary.stormLimited} to ${STORM}, ${summary.calmLimited} to ${CALM}; Slack calls: ${counts.calls[STORM] ?? 0} with ${STORM}'s token, ${counts.calls[CALM] ?? 0} with ${CALM}'s)`,
      [`${CALM} replies`]: '',
      lost: '',
      'p50 (ms)': '',
      'p99 (ms)': '',
      'max (ms)': '',
    });
  } finally {
    await app.stop();
    await fakes.send({ cmd: 'configure', latencyMs: 0, jobsPerHour: 100 });
  }
  return { rows, summary };
}
