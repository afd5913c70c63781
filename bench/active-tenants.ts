import { randomBytes } from 'node:crypto';
import { startRedisServer } from '../test/support/redis-server.js';
import { postSigned, slashCommandBody } from '../test/support/slack-signing.js';
import { SIGNING_SECRET } from '../test/support/test-app.js';
import { planMix, seedMix } from './active-mix.js';
import { type ActiveRun, activeReport, type Sample } from './active-tenants-report.js';
import { replicaEnv } from './deployment.js';
import { RedisProbe, seededTeam, seedInstalls } from './deployment-redis.js';
import { FakesProcess, type GitHubReport } from './fakes-process.js';
import { metricsText, metricValue, quietWindow } from './quiet-window.js';
import { connectionPorts, type Replica, rssMb, spawnReplica } from './replica-process.js';
import { sized } from './smoke.js';
import { connectProject } from './tenant-apps.js';

/**
 * Benchmark 13 (issue 43): what active tenants cost a deployment. Two replicas as processes (`dist/main.js`,
 * OAuth mode) on one redis-server, the fakes in a third. INSTALLS workspaces are seeded; ACTIVE of them each
 * send one `/docs-agent <instruction>` over WINDOW_S (open loop, alternating replicas): a cold tenant's first
 * command, a job created on the platform, polled on the plane and completed 15–45 s later with a PR whose
 * link is replied in the job's thread. Before them, the configured-but-idle mix (bench/active-mix.ts: alerts,
 * weekly posts, followed PRs, holds) on other installs. Sampled every few seconds from outside: each
 * replica's RSS, its resident tenants and its tenant-context loads and drops (/metrics). Then, once every PR
 * link is replied, the deployment's Redis commands a second while nobody uses the bot, split by kind of due
 * work, and the contexts loaded and dropped a minute meanwhile. Method and figures: BENCHMARKS.md §14.
 */

const env = (name: string, full: number, smoke: number) => Number(process.env[name] ?? sized(full, smoke));
export const INSTALLS = env('BENCH_ACTIVE_INSTALLS', 10_000, 30);
export const ACTIVE = env('BENCH_ACTIVE_TENANTS', 2_500, 4);
export const WINDOW_S = env('BENCH_ACTIVE_WINDOW_S', 600, 3);
const SAMPLE_MS = sized(5_000, 500);
const QUIET_MS = sized(30_000, 1_000);
const MONITOR_MS = sized(10_000, 500);
const SETTLE_MS = sized(10_000, 500);
const JOB_MS: [number, number] = sized([15_000, 45_000], [300, 800]);
const REPLIES_TIMEOUT_MS = sized(180_000, 60_000);
const READY_TIMEOUT_MS = sized(180_000, 60_000);
const KEY_SALT = randomBytes(8).toString('hex');
const projectOf = (i: number) => ({ projectId: `proj_bench_active_${i}`, apiKey: `bench-${KEY_SALT}-${i}` });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runActiveTenants(): Promise<string[]> {
  const fakes = await FakesProcess.start();
  const redis = await startRedisServer();
  const probe = await RedisProbe.open(redis.url);
  const replicas: Replica[] = [];
  try {
    // The fake GitHub for the followed PRs' tenants (their own tokens); the deployment has no token of its own.
    const { env: base, encryptionKey } = await replicaEnv(fakes, redis.url, {
      GITHUB_API_URL: fakes.urls.githubUrl ?? '',
      // To compare: how long a scope built for background work alone stays (the product's default: 90 s).
      ...(process.env.BENCH_BACKGROUND_IDLE_S
        ? { TENANT_BACKGROUND_IDLE_SECONDS: process.env.BENCH_BACKGROUND_IDLE_S }
        : {}),
    });
    const seedMs = await seedInstalls(redis.url, encryptionKey, 0, INSTALLS);
    // A project each: the fake platform allows 100 job creations an hour per project, as the real one may.
    for (let i = 0; i < ACTIVE; i += 50)
      await Promise.all(
        Array.from({ length: Math.min(50, ACTIVE - i) }, async (_, k) => {
          const project = projectOf(i + k);
          await fakes.send({ cmd: 'addProject', ...project });
          await connectProject(redis.url, seededTeam(i + k), project, encryptionKey);
        }),
      );
    const mix = await seedMix(
      fakes,
      redis.url,
      base,
      encryptionKey,
      planMix(INSTALLS, ACTIVE),
      KEY_SALT,
      READY_TIMEOUT_MS,
    );
    for (const name of ['A', 'B']) replicas.push(await spawnReplica(name, base, READY_TIMEOUT_MS));
    if (replicas.some((r) => r.readyMs === undefined)) throw new Error('a replica was not ready in time');
    const run: ActiveRun = {
      installs: INSTALLS,
      active: ACTIVE,
      windowS: WINDOW_S,
      seedMs,
      acks: [],
      ackFailures: [],
      samples: [],
      connections: [],
      replies: { expected: ACTIVE, replied: 0 },
      quiet: undefined,
      mix,
    };
    const sampler = startSampling(replicas, run.samples);
    // The mix's jobs are done (their PRs followed): only the active tenants' are completed from here.
    const completer = completeJobs(fakes, new Set(await fakes.send<string[]>({ cmd: 'jobIds' })));
    await driveCommands(fakes, replicas, run);
    const replied = await waitForReplies(fakes, ACTIVE + mix.followedReplied);
    run.replies = { expected: ACTIVE, replied: replied - mix.followedReplied };
    completer.stop();
    await sleep(SETTLE_MS);
    sampler.stop();
    await sampler.done;
    const clientPorts = new Set(await probe.clientPorts());
    run.connections = replicas.map(
      (r) => [...connectionPorts(r.pid, redis.port)].filter((p) => clientPorts.has(p)).length,
    );
    run.quiet = await quietWindow(probe, redis.url, replicas, QUIET_MS, MONITOR_MS);
    return activeReport(run);
  } finally {
    for (const r of replicas) await r.stop();
    await probe.close();
    await fakes.stop();
    await redis.stop();
  }
}

/** ACTIVE first commands, evenly spread over WINDOW_S, alternating replicas: each one's acknowledgement time. */
async function driveCommands(fakes: FakesProcess, replicas: Replica[], run: ActiveRun): Promise<void> {
  const gapMs = (WINDOW_S * 1000) / ACTIVE;
  const started = performance.now();
  const sent: Promise<void>[] = [];
  for (let i = 0; i < ACTIVE; i++) {
    const due = started + i * gapMs;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    sent.push(command(fakes, replicas[i % replicas.length]!, i, run));
  }
  await Promise.all(sent);
}

async function command(fakes: FakesProcess, replica: Replica, i: number, run: ActiveRun): Promise<void> {
  const body = slashCommandBody({
    team_id: seededTeam(i),
    user_id: 'U0ALICE',
    channel_id: 'C0DOCS',
    text: `document the rate limits for the active-tenants bench bench-mark-a${i}`,
    response_url: `${fakes.urls.slackUrl}/response/active-${i}`,
  });
  const sent = performance.now();
  const answer = await postSigned(replica.events, body, SIGNING_SECRET).catch((error: unknown) => ({
    status: 0,
    body: String(error),
  }));
  if (answer.status === 200) run.acks.push(performance.now() - sent);
  else run.ackFailures.push(`${seededTeam(i)}: ${answer.status} ${answer.body.slice(0, 120)}`);
}

/** Every job the platform creates is completed (its PR opened on the fake GitHub) 15–45 s later. */
function completeJobs(fakes: FakesProcess, seen: Set<string>): { stop(): void } {
  let stopped = false;
  void (async () => {
    while (!stopped) {
      const ids = await fakes.send<string[]>({ cmd: 'jobIds' });
      const jobs = ids
        .filter((id) => !seen.has(id))
        .map((jobId) => {
          seen.add(jobId);
          return { jobId, afterMs: JOB_MS[0] + Math.random() * (JOB_MS[1] - JOB_MS[0]) };
        });
      if (jobs.length) await fakes.send({ cmd: 'completeAfter', jobs, reportBranch: false });
      await sleep(sized(1_000, 100));
    }
  })();
  return {
    stop: () => {
      stopped = true;
    },
  };
}

/** PR links replied (every PR the fake GitHub opened), once `expected` or at the deadline. */
async function waitForReplies(fakes: FakesProcess, expected: number): Promise<number> {
  const deadline = Date.now() + JOB_MS[1] + REPLIES_TIMEOUT_MS;
  let replied = 0;
  while (Date.now() < deadline) {
    const report = await fakes.send<GitHubReport>({ cmd: 'githubReport' });
    replied = report.prs.filter((pr) => pr.repliedAt !== null).length;
    if (replied >= expected) break;
    await sleep(sized(2_000, 200));
  }
  return replied;
}

/** In the unit `rssMb` reads (MiB), so that the slopes compare. */
const megabytes = (bytes: number | undefined) => (bytes === undefined ? undefined : bytes / 1024 / 1024);

/** Every SAMPLE_MS until stopped: each replica's RSS and what its /metrics says of tenants. */
function startSampling(replicas: Replica[], samples: Sample[]): { stop(): void; done: Promise<void> } {
  let stopped = false;
  const started = performance.now();
  const done = (async () => {
    while (!stopped) {
      for (const [index, r] of replicas.entries()) {
        if (!r.alive()) continue;
        const text = await metricsText(r);
        samples.push({
          replica: index,
          atS: (performance.now() - started) / 1000,
          rssMb: rssMb(r.pid),
          heapUsedMb: megabytes(metricValue(text, 'nodejs_heap_size_used_bytes')),
          heapTotalMb: megabytes(metricValue(text, 'nodejs_heap_size_total_bytes')),
          resident: metricValue(text, 'docs_agent_tenants'),
          loaded: metricValue(text, 'docs_agent_tenant_contexts_loaded_total'),
          loadedForRequests: metricValue(text, 'docs_agent_tenant_contexts_loaded_total{cause="request"}'),
          dropped: metricValue(text, 'docs_agent_tenant_contexts_dropped_total'),
        });
      }
      await sleep(SAMPLE_MS);
    }
  })();
  return {
    stop: () => {
      stopped = true;
    },
    done,
  };
}
