import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { percentile, runTierScenario } from '../support/slack-tier-scenario.js';

/**
 * Issue 16 item 3: 100 jobs across 10 channels through the real app, against a fake Slack that answers 429
 * above Slack's documented tiers. Tiers, the bot's pacing and its poll cadence are all scaled ×5 to keep
 * the test short; bench/slack-tiers.ts runs the same scenario at the documented rates.
 */
describe('many jobs within Slack rate tiers', () => {
  it('100 jobs, 10 channels: no 429, replies within bound, every card final, ≤ 5 calls per job', async () => {
    const result = await runTierScenario({
      jobs: 100,
      channels: 10,
      scale: 5,
      endSpreadMs: 3_000,
      timeoutMs: 60_000,
    });
    console.log(
      JSON.stringify({
        replyP50Ms: percentile(result.replyDelaysMs, 50),
        replyP95Ms: percentile(result.replyDelaysMs, 95),
        ...result,
        replyDelaysMs: undefined,
      }),
    );
    expect(result.limited).toEqual({});
    expect(result.repliesMissing).toBe(0);
    // The documented bound (15 s after the job ended); detection by polling is part of it.
    expect(Math.max(...result.replyDelaysMs)).toBeLessThan(15_000);
    expect(result.notConverged).toBe(0);
    // The last card is final within twice the floor (final updates ÷ chat.update's rate) plus slack.
    expect(result.convergenceMs).toBeLessThan(2 * result.floorMs + 5_000);
    expect(result.callsPerJob).toBeLessThanOrEqual(5);
    expect(result.breakdown['conversations.replies'] ?? 0).toBe(0);
  }, 120_000);
});

describe('many jobs within Slack rate tiers, two replicas on one Redis', () => {
  let redis: RedisServer | undefined;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  // The tiers are per workspace: the replicas share one pace through Redis. Checked: with the shared slots
  // removed, each replica uses the whole tier and Slack answers 429.
  it('60 jobs over two replicas, 6 channels: no 429, every reply, every card final', async () => {
    const result = await runTierScenario({
      jobs: 60,
      channels: 6,
      scale: 5,
      endSpreadMs: 2_000,
      timeoutMs: 60_000,
      replicas: { count: 2, redisUrl: redis!.url },
    });
    console.log(JSON.stringify({ replicas: 2, ...result, replyDelaysMs: undefined }));
    expect(result.limited).toEqual({});
    expect(result.repliesMissing).toBe(0);
    expect(result.notConverged).toBe(0);
  }, 120_000);
});
