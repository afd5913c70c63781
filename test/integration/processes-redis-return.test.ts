import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeDocs } from '../support/fake-docs.js';
import type { FakeSlack, StoredMessage } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import {
  bot,
  fakes,
  onCleanup,
  redisServer,
  sleep,
  startJob,
  stopProcesses,
  terminalReplies,
} from '../support/process-helpers.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

/*
 * Issue 26 item 6: the store refuses to record what a poll owes (the outbox's card states and notices)
 * while everything else works, so the poll ends the watch unless owing fails it. Issue 28: jobs that
 * finished while Redis was down. Two real replicas on one redis-server (AOF on, so it
 * comes back with its data, as a production Redis would), polls every 1-5 s as in production. The polls
 * that came due while the store was away must run as soon as it is back, not keep backing off.
 */

afterEach(stopProcesses);

const cardIsFinal = (slack: FakeSlack, card: StoredMessage) =>
  slack.message(card.channel, card.ts)?.text.includes('Done: pull request opened') === true;

const polls = (docs: FakeDocs) => docs.requestsTo('GET', /\/job\//).length;

/** Resolves once no poll reached the docs platform for `quietMs`. */
async function quietMoment(docs: FakeDocs, quietMs: number): Promise<void> {
  let seen = polls(docs);
  let since = Date.now();
  await waitFor(
    () => {
      if (polls(docs) !== seen) {
        seen = polls(docs);
        since = Date.now();
      }
      return Date.now() - since > quietMs;
    },
    { what: 'a moment without polls', timeoutMs: 20_000 },
  );
}

/** A redis-server whose data survives a kill -9, and a way to bring it back on the same port. */
async function durableRedis(): Promise<{ current: () => RedisServer; restart: () => Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'docs-agent-redis-aof-'));
  let redis = await startRedisServer({ dataDir });
  onCleanup(async () => {
    await redis.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  return {
    current: () => redis,
    restart: async () => {
      redis = await startRedisServer({ port: redis.port, dataDir });
    },
  };
}

describe('Redis returns (real processes, one Redis)', () => {
  it('Redis killed for 5 s while jobs finish, polls every 1-5 s: every reply lands within 5 s of Redis returning', async () => {
    const { slack, docs } = await fakes();
    const redis = await durableRedis();
    const env = { POLL_INTERVAL_MS: '1000', POLL_MAX_INTERVAL_MS: '5000', LOG_LEVEL: 'info' };
    const url = redis.current().url;
    const [a, b] = await Promise.all([
      bot({ name: 'a', slack, docs, redisUrl: url, env }),
      bot({ name: 'b', slack, docs, redisUrl: url, env }),
    ]);
    const started = [];
    for (let i = 0; i < 6; i++)
      started.push(await startJob(i % 2 ? b : a, slack, docs, `C0REDISBACK${i}`, `Document return ${i}`));
    await waitFor(() => polls(docs) >= 12, { what: 'polls under way', timeoutMs: 15_000 });
    // Redis dies between polls (none for 300 ms): each replica's poll worker is left waiting on the queue,
    // and no poll in flight wakes it when Redis returns (one that was would wake it by chance).
    await quietMoment(docs, 300);
    await redis.current().stop();
    for (const { job } of started) docs.complete(job.id, `https://github.com/acme/docs/pull/${job.id}`);
    await sleep(5_000);
    await redis.restart();
    const backAt = Date.now();

    const landedAfter: number[] = [];
    await Promise.all(
      started.map(async ({ card }) => {
        await waitFor(() => terminalReplies(slack, card).length > 0, {
          what: `reply in ${card.channel} after Redis returned`,
          timeoutMs: 30_000,
        });
        landedAfter.push(Date.now() - backAt);
      }),
    );
    landedAfter.sort((x, y) => x - y);
    console.info(`[figure] replies after Redis returned (polls 1-5 s): ${landedAfter.join(', ')} ms`);
    // Target 5 s (issue 28); measured before the fix: up to 10-12 s.
    expect(landedAfter.at(-1)).toBeLessThan(5_000);
    await sleep(2_000);
    for (const { job, card } of started) {
      const replies = terminalReplies(slack, card);
      expect(replies, `replies in ${card.channel}`).toHaveLength(1);
      expect(replies[0]!.text).toContain(`/pull/${job.id}`);
      await waitFor(() => cardIsFinal(slack, card), {
        what: `final card ${card.channel}`,
        timeoutMs: 10_000,
      });
    }
  }, 90_000);

  it('Redis killed again and again while jobs finish (polls running): every card ends final, one reply each', async () => {
    const { slack, docs } = await fakes();
    const redis = await durableRedis();
    const env = { POLL_INTERVAL_MS: '100', POLL_MAX_INTERVAL_MS: '200', LOG_LEVEL: 'info' };
    const url = redis.current().url;
    const [a, b] = await Promise.all([
      bot({ name: 'a', slack, docs, redisUrl: url, env }),
      bot({ name: 'b', slack, docs, redisUrl: url, env }),
    ]);
    const started = [];
    for (let i = 0; i < 12; i++)
      started.push(await startJob(i % 2 ? b : a, slack, docs, `C0BLIPS${i}`, `Document blip ${i}`));
    await waitFor(() => polls(docs) >= 24, { what: 'polls under way', timeoutMs: 15_000 });
    // Three jobs end at a time, and Redis dies a few milliseconds later, while their polls record it.
    for (let round = 0; round < 4; round++) {
      for (const { job } of started.slice(round * 3, round * 3 + 3))
        docs.complete(job.id, `https://github.com/acme/docs/pull/${job.id}`);
      await sleep(40 + round * 30);
      await redis.current().stop();
      await sleep(1_000);
      await redis.restart();
      await sleep(1_500);
    }
    // The reply and the card are separate deliveries: either may land first after a blip.
    for (const { job, card } of started)
      await waitFor(() => cardIsFinal(slack, card) && terminalReplies(slack, card).length > 0, {
        what: `final card and reply of ${job.id}`,
        timeoutMs: 20_000,
      });
    await sleep(2_000);
    for (const { card } of started)
      expect(terminalReplies(slack, card), `replies in ${card.channel}`).toHaveLength(1);
  }, 120_000);

  it('the store refuses card states and notices while jobs end: the polls fail and retry, every card ends final and the notice is posted', async () => {
    const { slack, docs } = await fakes();
    const redis = await redisServer();
    const env = { POLL_INTERVAL_MS: '200', POLL_MAX_INTERVAL_MS: '400', LOG_LEVEL: 'info' };
    const [a, b] = await Promise.all([
      bot({ name: 'a', slack, docs, redisUrl: redis.url, env }),
      bot({ name: 'b', slack, docs, redisUrl: redis.url, env }),
    ]);
    const done = await startJob(a, slack, docs, 'C0BLIPDONE', 'Document the blip that ends');
    const gone = await startJob(b, slack, docs, 'C0BLIPGONE', 'Document the blip that vanishes');
    await waitFor(() => polls(docs) >= 4, { what: 'first polls' });

    // Writes of card states and notices are refused (Redis ACL); job records and replies still save.
    denyKeys(redis.port, ['docs-agent:delivery:card:', 'docs-agent:delivery:notice:']);
    onCleanup(async () => allowAllKeys(redis.port));
    docs.complete(done.job.id, `https://github.com/acme/docs/pull/${done.job.id}`);
    docs.remove(gone.job.id);
    await waitFor(() => terminalReplies(slack, done.card).length === 1, {
      what: 'the reply',
      timeoutMs: 10_000,
    });
    // Long enough for several polls of both jobs to see how they ended.
    await sleep(3_000);
    allowAllKeys(redis.port);

    await waitFor(() => cardIsFinal(slack, done.card), {
      what: 'final card of the finished job',
      timeoutMs: 15_000,
    });
    await waitFor(
      () => slack.message(gone.card.channel, gone.card.ts)?.text.includes('no longer exists') === true,
      { what: 'final card of the job gone upstream', timeoutMs: 15_000 },
    );
    const notices = () =>
      slack.threadReplies(gone.card.channel, gone.card.ts).filter((m) => m.text.includes('no longer exists'));
    await waitFor(() => notices().length > 0, { what: 'the notice in its thread', timeoutMs: 15_000 });
    await sleep(1_000);
    expect(notices()).toHaveLength(1);
    expect(terminalReplies(slack, done.card)).toHaveLength(1);
  }, 90_000);
});

/**
 * Redis ACL for the default user: every key but those under `prefixes` (ACL key patterns only allow, so
 * the complement is spelled out: at each character of a denied prefix, any other character).
 */
function denyKeys(port: number, prefixes: string[]): void {
  const patterns: string[] = [];
  const walk = (stem: string) => {
    if (prefixes.includes(stem)) return;
    const next = [...new Set(prefixes.filter((p) => p.startsWith(stem)).map((p) => p[stem.length]!))];
    patterns.push(`~${stem}[^${next.map((c) => (/[-\]\\^]/.test(c) ? `\\${c}` : c)).join('')}]*`);
    for (const c of next) walk(stem + c);
  };
  walk('');
  execFileSync('redis-cli', ['-p', String(port), 'ACL', 'SETUSER', 'default', 'resetkeys', ...patterns]);
}

function allowAllKeys(port: number): void {
  execFileSync('redis-cli', ['-p', String(port), 'ACL', 'SETUSER', 'default', 'resetkeys', '~*']);
}
