import { createClient } from '@redis/client';
import { FAKE_GITHUB_TOKEN } from '../test/support/fake-github.js';
import { postSigned, slashCommandBody } from '../test/support/slack-signing.js';
import { SIGNING_SECRET } from '../test/support/test-app.js';
import { seededTeam } from './deployment-redis.js';
import type { FakesProcess, GitHubReport } from './fakes-process.js';
import { DIRECTORY_PREFIX, RedisTenantDirectory, secretBoxFromSettings } from './product.js';
import { type Replica, spawnReplica } from './replica-process.js';
import { sized } from './smoke.js';

const DUE_INDEX_KEY = 'docs-agent:{due}:tenants';

/**
 * The configured-but-idle mix of issue 43's benchmark (bench/active-tenants.ts): of the installs, 20% with
 * alerts on, 10% with a weekly post, 5% with a followed PR, 1% on hold, none of them among the active
 * tenants. Seeded as a deployment would hold them: each configured tenant's docs project (and, for a followed
 * PR, its GitHub token) saved through the directory as `/docs-agent connect` and the GitHub form save them;
 * then `/docs-health alerts on`, `/docs-views schedule …` and one `/docs-agent` job whose PR is opened and
 * replied, each a signed command to a replica of its own ("S", stopped before the measured replicas start);
 * a hold through `directory.hold`, as the upkeep records a token that cannot be refreshed.
 */

export const MIX_SHARES = { alerts: 0.2, weekly: 0.1, followed: 0.05, held: 0.01 } as const;
export type MixKind = keyof typeof MIX_SHARES;
export interface MixPlan {
  /** Seeded-team indexes of each kind (disjoint, after the active ones). */
  tenants: Record<MixKind, number[]>;
}
export interface MixSeeded {
  counts: Record<MixKind, number>;
  /** Job schedulers Redis holds afterwards per plane kind (alerts, weekly), and PR links replied. */
  schedulers: Record<'alerts' | 'weekly', number>;
  followedReplied: number;
  /** Followed tenants the due index holds afterwards (a followed PR keeps its tenant there). */
  followedDue: number;
  /** Other tenants still due and alert checks or posts still queued when S stopped (not over in time). */
  othersDue: number;
  seedMs: number;
}

const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const BATCH = 20;
const ANSWER_TIMEOUT_MS = sized(300_000, 60_000);
// The commands' answers leave duplicate sweeps due; a deployment configured long ago has none owed.
// BENCH_MIX_SETTLE_S waits longer (at full size the seeding replica alone may not finish in 180 s).
const SWEEPS_TIMEOUT_MS = Number(process.env.BENCH_MIX_SETTLE_S ?? 0) * 1000 || sized(180_000, 2_000);
export const mixProject = (i: number, salt: string) => ({
  projectId: `proj_bench_mix_${i}`,
  apiKey: `bench-mix-${salt}-${i}`,
});

/** Which installs get which configuration: at least one of each, from index `from` on. */
export function planMix(installs: number, from: number): MixPlan {
  let next = from;
  const take = (share: number) => {
    const n = Math.max(1, Math.round(installs * share));
    const out = Array.from({ length: n }, (_, k) => next + k);
    next += n;
    return out;
  };
  const tenants = {
    alerts: take(MIX_SHARES.alerts),
    weekly: take(MIX_SHARES.weekly),
    followed: take(MIX_SHARES.followed),
    held: take(MIX_SHARES.held),
  };
  if (next > installs) throw new Error(`the mix needs ${next} installs, only ${installs} seeded`);
  return { tenants };
}

export async function seedMix(
  fakes: FakesProcess,
  redisUrl: string,
  env: Record<string, string>,
  encryptionKey: string,
  plan: MixPlan,
  salt: string,
  readyTimeoutMs: number,
): Promise<MixSeeded> {
  const started = performance.now();
  const { alerts, weekly, followed, held } = plan.tenants;
  const client = looksClient(redisUrl);
  await client.connect();
  let seeding: Replica | undefined;
  try {
    const directory = new RedisTenantDirectory(
      client,
      DIRECTORY_PREFIX,
      secretBoxFromSettings(encryptionKey, undefined),
    );
    const withGithub = new Set(followed);
    await inBatches([...alerts, ...weekly, ...followed], async (i) => {
      const project = mixProject(i, salt);
      await fakes.send({ cmd: 'addProject', ...project });
      const tenant = seededTeam(i);
      const { version } = await directory.settings(tenant);
      const now = Date.now();
      const connection = { ...project, channelId: undefined, connectedBy: 'U0INSTALLER', connectedAt: now };
      const github = withGithub.has(i)
        ? { token: FAKE_GITHUB_TOKEN, owners: ['acme'], connectedBy: 'U0INSTALLER', connectedAt: now }
        : undefined;
      const saved = await directory.saveSettings(
        tenant,
        { projects: [connection], ...(github ? { github } : {}) },
        version,
      );
      if (!saved) throw new Error(`could not configure ${tenant}`);
    });
    await inBatches(held, async (i) => {
      const tenant = seededTeam(i);
      const lifecycle = await directory.lifecycle(tenant);
      const hold = { state: 'needs_reinstall' as const, since: Date.now(), reason: 'bench: refresh refused' };
      if (!lifecycle || !(await directory.hold(tenant, hold, lifecycle.installId)))
        throw new Error(`could not hold ${tenant}`);
    });
    seeding = await spawnReplica('S', env, readyTimeoutMs);
    if (seeding.readyMs === undefined)
      throw new Error(`the seeding replica was not ready: ${seeding.tail()}`);
    const events = seeding.events;
    const jobsBefore = new Set(await fakes.send<string[]>({ cmd: 'jobIds' }));
    const say = (command: string, text: string, i: number, tag: string) =>
      postSigned(
        events,
        slashCommandBody({
          command,
          text,
          team_id: seededTeam(i),
          user_id: 'U0INSTALLER',
          channel_id: 'C0DOCS',
          response_url: `${fakes.urls.slackUrl}/response/mix-${tag}-${i}`,
        }),
        SIGNING_SECRET,
      );
    await inBatches(alerts, (i) => say('/docs-health', 'alerts on', i, 'alerts'));
    await inBatches(weekly, (i) =>
      say('/docs-views', `schedule ${DAYS[i % DAYS.length]} 09:00 Europe/Berlin`, i, 'weekly'),
    );
    await inBatches(followed, (i) =>
      say('/docs-agent', `document the webhooks for the mix bench bench-mark-m${i}`, i, 'followed'),
    );
    for (const [tag, list] of [
      ['alerts', alerts],
      ['weekly', weekly],
    ] as const) {
      const answered = await fakes.send<number>({
        cmd: 'waitResponses',
        prefix: `/response/mix-${tag}-`,
        count: list.length,
        timeoutMs: ANSWER_TIMEOUT_MS,
      });
      if (answered < list.length) throw new Error(`${tag}: ${answered} of ${list.length} commands answered`);
    }
    const followedReplied = await completeFollowed(fakes, jobsBefore, followed.length);
    // Checked in Redis, not taken from the answers: an answer such as "connect a docs project first"
    // schedules nothing, and the run would measure a mix that is not there.
    const found = { alerts: await schedulers(client, 'alerts'), weekly: await schedulers(client, 'weekly') };
    if (found.alerts < alerts.length || found.weekly < weekly.length || followedReplied < followed.length)
      throw new Error(
        `the mix was not configured: ${found.alerts}/${alerts.length} alert and ${found.weekly}/${weekly.length} weekly schedulers, ${followedReplied}/${followed.length} PR links replied`,
      );
    const followedDue = followed.length
      ? (await client.zmScore(DUE_INDEX_KEY, followed.map(seededTeam))).filter((v) => v !== null).length
      : 0;
    const othersDue = await sweepsOver(client, new Set(followed.map(seededTeam)));
    return {
      counts: { alerts: alerts.length, weekly: weekly.length, followed: followed.length, held: held.length },
      schedulers: found,
      followedReplied,
      followedDue,
      othersDue,
      seedMs: performance.now() - started,
    };
  } finally {
    await seeding?.stop();
    await client.close();
  }
}

/** The followed tenants' jobs: completed at once with a PR left open on GitHub; PR links replied. */
async function completeFollowed(fakes: FakesProcess, before: Set<string>, expected: number): Promise<number> {
  const deadline = Date.now() + ANSWER_TIMEOUT_MS;
  let jobIds: string[] = [];
  while (jobIds.length < expected && Date.now() < deadline) {
    jobIds = (await fakes.send<string[]>({ cmd: 'jobIds' })).filter((id) => !before.has(id));
    if (jobIds.length < expected) await new Promise((r) => setTimeout(r, 200));
  }
  const jobs = jobIds.map((jobId) => ({ jobId, afterMs: 0 }));
  await fakes.send({ cmd: 'completeAfter', jobs, reportBranch: false });
  let replied = 0;
  while (Date.now() < deadline) {
    const report = await fakes.send<GitHubReport>({ cmd: 'githubReport' });
    replied = report.prs.filter((pr) => pr.repliedAt !== null).length;
    if (replied >= expected) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  return replied;
}

/** A plain connection for the seeding's writes and looks (its type is what `createClient` infers here). */
const looksClient = (url: string) => createClient({ url });
type Looks = ReturnType<typeof looksClient>;

/**
 * Waits (bounded) until only followed tenants are due and no alert check or weekly post is waiting or running
 * (BullMQ runs an `every` scheduler's first check at once): how many of either still were.
 */
async function sweepsOver(client: Looks, followed: Set<string>): Promise<number> {
  const deadline = Date.now() + SWEEPS_TIMEOUT_MS;
  for (;;) {
    let others = (await client.zRange(DUE_INDEX_KEY, 0, -1)).filter((t) => !followed.has(t)).length;
    for (const kind of ['alerts', 'weekly'])
      for (const list of ['wait', 'active'])
        for await (const keys of client.scanIterator({
          MATCH: `*{plane-${kind}-*}:${kind}:${list}`,
          COUNT: 1000,
        }))
          for (const key of keys) others += await client.lLen(key);
    if (others === 0 || Date.now() > deadline) return others;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Job schedulers on a plane kind's queues (every shard), as Redis holds them. */
async function schedulers(client: Looks, kind: string): Promise<number> {
  let n = 0;
  for await (const keys of client.scanIterator({ MATCH: `*{plane-${kind}-*}:${kind}:repeat`, COUNT: 1000 }))
    for (const key of keys) n += await client.zCard(key);
  return n;
}

async function inBatches(items: number[], each: (i: number) => Promise<unknown>): Promise<void> {
  for (let at = 0; at < items.length; at += BATCH) await Promise.all(items.slice(at, at + BATCH).map(each));
}
