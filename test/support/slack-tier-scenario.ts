import { FakeDocs } from './fake-docs.js';
import { FakeSlack, type StoredMessage } from './fake-slack.js';
import { waitFor } from './http.js';
import { SlackRateTiers, TIERS } from './slack-rate-tiers.js';
import { startTestApp } from './test-app.js';

/**
 * Issue 16 item 3: many jobs at once within Slack's rate tiers. The real app (HTTP mode) against a fake
 * Slack enforcing the documented tiers (times `scale`) and the fake docs platform: `jobs` slash commands
 * across `channels` channels, jobs ending at staggered times, then every terminal reply and every card's
 * final state awaited. Shared by test/integration/slack-rate-tiers.test.ts and bench/slack-tiers.ts.
 */
export interface TierScenario {
  jobs: number;
  channels: number;
  /** Multiplies Slack's tiers (fake) and the bot's pacing and poll cadence alike; 1 = documented. */
  scale: number;
  /** Jobs end evenly over this window (real ms). */
  endSpreadMs: number;
  /** false: the bot's client-side pacing off (to show what it prevents). */
  pacing?: boolean;
  /** Give up waiting for replies and cards after this long (real ms). */
  timeoutMs: number;
  /** Several app instances on this Redis (replicas), commands spread over them; default one, in memory. */
  replicas?: { count: number; redisUrl: string };
}

export interface TierResult {
  /** Per job, ms from the job ending upstream to its terminal reply landing in Slack. */
  replyDelaysMs: number[];
  repliesMissing: number;
  limited: Record<string, number>;
  limitedTotal: number;
  /** Cards not showing their job's final state at the end. */
  notConverged: number;
  /** From the first job ending to the last card showing its final state. */
  convergenceMs: number;
  /** From the last job ending to the last card showing its final state. */
  afterLastEndMs: number;
  /** Cards whose final state was sent by chat.update (one each is the least Slack must take). */
  finalUpdates: number;
  /** chat.update calls that sent a card's final state again (after its first final update). */
  repeatFinalUpdates: number;
  /** Final card updates ÷ chat.update's tier rate: the earliest the last card can be final. */
  floorMs: number;
  callsPerJob: number;
  breakdown: Record<string, number>;
}

const isTerminalReply = (m: StoredMessage) =>
  String(m.metadata?.event_payload?.key ?? '').startsWith('terminal:');

export async function runTierScenario(s: TierScenario): Promise<TierResult> {
  const slack = await FakeSlack.start();
  const docs = await FakeDocs.start();
  docs.jobsPerHour = 1_000_000;
  // Scaled ×N, Slack's burst window (4 calls) would shrink N×, while the jitter that bunches calls does not
  // (here the fake shares the app's event loop, so every stall counts twice): the burst scales with the rate.
  slack.rateTiers = new SlackRateTiers({ scale: s.scale, burst: 4 * Math.max(1, Math.round(s.scale)) });
  const pacing = s.pacing ?? true;
  const startApp = () =>
    startTestApp({
      slack,
      docs,
      env: {
        ...(s.replicas ? { REDIS_URL: s.replicas.redisUrl } : {}),
        SLACK_TIER_RATE_PERCENT: pacing ? String(Math.round(100 * s.scale)) : '0',
        SLACK_CHANNEL_POST_INTERVAL_MS: pacing ? String(Math.round(1000 / s.scale)) : '0',
        POLL_INTERVAL_MS: String(Math.round(5_000 / s.scale)),
        POLL_MAX_INTERVAL_MS: String(Math.round(60_000 / s.scale)),
        // The production default: the test env's 2 s makes posts time out on a loaded machine (then each
        // costs a look-up), which is not what is measured here.
        SLACK_API_TIMEOUT_MS: '10000',
        AGENT_JOBS_PER_HOUR: '1000000',
        DOCS_API_MAX_RPS: '1000',
        LOG_LEVEL: 'info',
      },
    });
  const apps = await Promise.all(Array.from({ length: s.replicas?.count ?? 1 }, startApp));
  const repliedAt = new Map<string, number>();
  const push = slack.messages.push.bind(slack.messages);
  slack.messages.push = (...messages: StoredMessage[]) => {
    for (const m of messages)
      if (isTerminalReply(m)) repliedAt.set(String(m.metadata?.event_payload.key).split(':')[1]!, Date.now());
    return push(...messages);
  };
  try {
    const callsBefore = slack.calls.length;
    const prompts = Array.from({ length: s.jobs }, (_, i) => `Tier job ${i}: tidy page ${i}`);
    for (let i = 0; i < s.jobs; i += 10) {
      await Promise.all(
        prompts.slice(i, i + 10).map((text, k) =>
          apps[(i + k) % apps.length]!.command({
            text,
            channel_id: `C0TIER${(i + k) % s.channels}`,
            response_url: slack.responseUrl(`tier-${i + k}`),
          }),
        ),
      );
    }
    const jobs = await waitFor(
      () => {
        const all = [...docs.jobs.values()];
        return all.length >= s.jobs ? all : undefined;
      },
      { timeoutMs: s.timeoutMs, what: 'every job created' },
    );
    const cardOf = (jobId: string) =>
      slack.messages.find(
        (m) =>
          String(m.metadata?.event_payload?.key ?? '').startsWith('card:') &&
          JSON.stringify(m.blocks ?? '').includes(jobId),
      );
    // Jobs run for minutes in life: each card shows its job (the update after create landed) before any ends.
    await waitFor(() => jobs.every((job) => cardOf(job.id)), {
      timeoutMs: s.timeoutMs,
      what: 'every card tracking its job',
    });
    const endedAt = new Map<string, number>();
    const firstEnd = Date.now();
    await Promise.all(
      jobs.map(
        (job, i) =>
          new Promise<void>((resolve) =>
            setTimeout(
              () => {
                if (i % 5 === 4) docs.fail(job.id);
                else docs.complete(job.id);
                endedAt.set(job.id, Date.now());
                resolve();
              },
              Math.round((i * s.endSpreadMs) / s.jobs),
            ),
          ),
      ),
    );
    const deadline = firstEnd + s.timeoutMs;
    const final = (jobId: string) => {
      const card = JSON.stringify(cardOf(jobId)?.blocks ?? '');
      const failed = docs.jobs.get(jobId)?.status === 'failed';
      return failed
        ? card.includes(':x: *Failed') || card.includes('Failed')
        : card.includes('pull request opened');
    };
    // Cards and replies are awaited together; the cards' time is the first moment all of them were final.
    let allFinalAt: number | undefined;
    for (;;) {
      const cardsFinal = jobs.every((j) => final(j.id));
      if (cardsFinal) allFinalAt ??= Date.now();
      if ((cardsFinal && jobs.every((j) => repliedAt.has(j.id))) || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const convergedAt = allFinalAt ?? Date.now();
    const lastEnd = Math.max(...endedAt.values());
    const calls = slack.calls.slice(callsBefore).filter((c) => c.method !== 'auth.test');
    const finalCards = new Set<string>();
    let finalUpdateCalls = 0;
    for (const call of calls) {
      if (call.method !== 'chat.update') continue;
      const blocks = JSON.stringify(call.args.blocks ?? '');
      if (!blocks.includes('pull request opened') && !blocks.includes('Failed')) continue;
      finalUpdateCalls += 1;
      finalCards.add(`${String(call.args.channel)}:${String(call.args.ts)}`);
    }
    const breakdown: Record<string, number> = {};
    for (const call of calls) breakdown[call.method] = (breakdown[call.method] ?? 0) + 1;
    for (const method of Object.keys(breakdown)) breakdown[method] = breakdown[method]! / s.jobs;
    return {
      replyDelaysMs: jobs
        .filter((j) => repliedAt.has(j.id))
        .map((j) => repliedAt.get(j.id)! - endedAt.get(j.id)!),
      repliesMissing: jobs.filter((j) => !repliedAt.has(j.id)).length,
      limited: Object.fromEntries(slack.rateTiers.limited),
      limitedTotal: slack.rateTiers.limitedTotal,
      notConverged: jobs.filter((j) => !final(j.id)).length,
      convergenceMs: convergedAt - firstEnd,
      afterLastEndMs: convergedAt - lastEnd,
      finalUpdates: finalCards.size,
      repeatFinalUpdates: finalUpdateCalls - finalCards.size,
      floorMs: (finalCards.size / (TIERS[3] * s.scale)) * 60_000,
      callsPerJob: calls.length / s.jobs,
      breakdown,
    };
  } finally {
    for (const app of apps) await app.stop();
    await slack.close();
    await docs.close();
  }
}

export function percentile(values: number[], p: number): number {
  if (!values.length) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
