import { describe, expect, it } from 'vitest';
import { HistoryReads } from '../../src/slack/history-reads.js';
import type { PageArgs, ReadPage } from '../../src/slack/message-lookup.js';
import { RedisHistoryAnswers } from '../../src/state/redis/redis-history-answers.js';
import { redisForReplicas } from '../support/redis-replicas.js';

/*
 * Issue 35: history reads shared by the replicas of a workspace (a distributed app reads a thread once a
 * minute). Two HistoryReads, each on its own Redis connection as two replicas would be, on a real
 * redis-server; each replica's reads wait for a slot the test grants.
 */

const redis = redisForReplicas();
const EVENT = 'docs_agent_message';
const post = (ts: string, key: string) => ({ ts, metadata: { event_type: EVENT, event_payload: { key } } });
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

async function replica(namespace: string, stored: () => unknown[]) {
  const slots: Array<() => void> = [];
  const made: PageArgs[] = [];
  const read: ReadPage = async (_method, _channel, args) => {
    await new Promise<void>((resolve) => slots.push(resolve));
    const page = await args();
    if (!page) return undefined;
    made.push(page);
    return { messages: stored() };
  };
  const shared = new RedisHistoryAnswers(await redis.replica(), `${namespace}:`);
  const reads = new HistoryReads(read, EVENT, { now: Date.now, shared });
  const grant = async () => {
    await settle();
    slots.shift()?.();
    await settle();
  };
  return { reads, made, grant, slots };
}

describe('history reads shared by replicas (Redis)', () => {
  it("a look-up on one replica is answered by the other's read; its own read, when its slot comes, is skipped", async () => {
    const stored = () => [post('5.000001', 'terminal:a'), post('5.000002', 'terminal:b')];
    const [a, b] = [await replica('shared-1', stored), await replica('shared-1', stored)];
    const thread = { channel: 'C1', threadTs: '4.000001', sinceMs: 0 };
    // Both replicas look up a record of the thread; only a's slot comes within b's wait.
    const onA = a.reads.copies({ ...thread, key: 'terminal:a' }, 60_000);
    await expect(b.reads.copies({ ...thread, key: 'terminal:b' }, 50)).rejects.toMatchObject({
      code: 'lookup_pending',
    });
    await a.grant();
    expect(await onA).toEqual(['5.000001']);
    // b's retry: answered by a's read, which started after b first asked.
    expect(await b.reads.copies({ ...thread, key: 'terminal:b' }, 50)).toEqual(['5.000002']);
    // b's own read, queued before, makes no call when its slot comes: a's answer covers everyone it had.
    await b.grant();
    expect(a.made).toHaveLength(1);
    expect(b.made).toHaveLength(0);
  });

  it('a record first asked after the other replica read waits for a new read (nothing stale answers it)', async () => {
    let stored = [post('6.000001', 'k1')];
    const [a, b] = [await replica('shared-2', () => stored), await replica('shared-2', () => stored)];
    const thread = { channel: 'C1', threadTs: '6.000000', sinceMs: 0 };
    const first = a.reads.copies({ ...thread, key: 'k1' }, 60_000);
    await a.grant();
    await first;
    stored = [post('6.000001', 'k1'), post('6.000002', 'k2')];
    const later = b.reads.copies({ ...thread, key: 'k2' }, 60_000);
    await b.grant();
    expect(await later).toEqual(['6.000002']);
    expect(b.made).toHaveLength(1);
  });
});
