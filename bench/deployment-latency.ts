import { seededTeam } from './deployment-redis.js';
import type { FakesProcess } from './fakes-process.js';
import { openLoop } from './load-generators.js';
import { type Fairness, measureFairness } from './plane-fairness.js';
import type { Replica } from './replica-process.js';
import { sized } from './smoke.js';
import { median, percentile } from './stats.js';
import { signedCommand } from './tenant-apps.js';

/**
 * The latencies of the deployment benchmark (bench/deployment.ts), at its last level, both replicas up:
 * acknowledgements of busy tenants (open loop, signed `/docs-agent help`, the first BUSY seeded workspaces
 * spread over both replicas), a cold tenant's first request (seeded workspaces nobody has used yet), and
 * `/metrics` scrapes. Fairness is left as a hook (see `fairness`).
 */

/** Busy workspaces (each sends about one command a second). */
export const BUSY = Number(process.env.BENCH_SCALE_BUSY ?? sized(200, 5));
const ACK_PER_S = sized(BUSY, 10);
const ACK_S = sized(20, 1);
const WARM_UP_S = sized(3, 1);
const COLD = sized(20, 3);
const SCRAPES = sized(20, 3);

export interface Spread {
  count: number;
  p50: number;
  p99: number;
  max: number;
  failures: number;
  /** The first failure's answer (the bot's own text, cut short), to say why. */
  failed?: string;
}

export interface Latencies {
  acks: Spread;
  cold: Spread;
  metrics: Spread;
  /** ms from A's install callback until B answered the new workspace, per sample install. */
  served?: number[] | undefined;
  fairness: Fairness;
}

const spread = (values: number[], failures: number): Spread => ({
  count: values.length,
  p50: median(values),
  p99: percentile(values, 99),
  max: values.length ? Math.max(...values) : Number.NaN,
  failures,
});

export async function measureLatencies(
  fakes: FakesProcess,
  replicas: [Replica, Replica],
  seeded: number,
  redisUrl: string,
): Promise<Omit<Latencies, 'served'>> {
  const cold = await coldFirstRequests(fakes, replicas, seeded);
  const acks = await busyAcks(fakes, replicas);
  const metrics = await scrapes(replicas);
  return { acks, cold, metrics, fairness: await measureFairness(redisUrl) };
}

/** Open loop at ACK_PER_S over both replicas (half each), requests from the BUSY workspaces in turn. */
async function busyAcks(fakes: FakesProcess, replicas: Replica[]): Promise<Spread> {
  const teams = Array.from({ length: BUSY }, (_, i) => seededTeam(i));
  const mix = [{ label: 'help', command: '/docs-agent', text: 'help' }];
  const drive = (seconds: number, tag: string) =>
    Promise.all(
      replicas.map((r, i) =>
        openLoop(
          {
            url: r.events,
            perSecond: ACK_PER_S / replicas.length,
            seconds,
            mix,
            tag: `${tag}${r.name}-`,
            teams: teams.filter((_, t) => t % replicas.length === i),
          },
          fakes.urls.slackUrl,
        ),
      ),
    );
  await drive(WARM_UP_S, 'scale-warm-');
  const results = await drive(ACK_S, 'scale-busy-');
  return spread(
    results.flatMap((r) => r.latencies.help!),
    results.reduce((n, r) => n + r.failures.help!, 0),
  );
}

/**
 * One `/docs-agent help` from each of COLD seeded workspaces that no request has named yet (the last ones
 * seeded), alternating replicas, one at a time: the time to the acknowledgement.
 */
async function coldFirstRequests(fakes: FakesProcess, replicas: Replica[], seeded: number): Promise<Spread> {
  const times: number[] = [];
  let failures = 0;
  let failed: string | undefined;
  for (let i = 0; i < COLD; i++) {
    const team = seededTeam(seeded - 1 - i);
    const sent = performance.now();
    const body = await signedCommand(fakes, replicas[i % replicas.length]!.events, team, 'help');
    const ms = performance.now() - sent;
    if (body.includes('/docs-agent')) times.push(ms);
    else {
      failures += 1;
      failed ??= `${team}: ${JSON.stringify(body.slice(0, 160))}`;
    }
  }
  return { ...spread(times, failures), ...(failed ? { failed } : {}) };
}

/** SCRAPES sequential GET /metrics per replica: the time to the whole body. */
async function scrapes(replicas: Replica[]): Promise<Spread> {
  const times: number[] = [];
  let failures = 0;
  for (const r of replicas) {
    for (let i = 0; i < SCRAPES; i++) {
      const sent = performance.now();
      const ok = await fetch(r.metricsUrl).then(
        async (res) => (await res.text()).length > 0 && res.status === 200,
        () => false,
      );
      if (ok) times.push(performance.now() - sent);
      else failures += 1;
    }
  }
  return spread(times, failures);
}
