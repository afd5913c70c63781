import { beforeAll, describe, expect, it } from 'vitest';
import type { StartJobRequest } from '../../src/jobs/use-cases/start-job.js';
import type { RedisClient } from '../../src/state/redis/redis-client.js';
import { RedisStartHandovers } from '../../src/state/redis/redis-start-handovers.js';
import { redisForReplicas } from '../support/redis-replicas.js';

/* Issue 35: the job starts a stopping replica hands over, as two replicas on one redis-server see them. */

const redis = redisForReplicas();
let clients: RedisClient[] = [];
beforeAll(async () => {
  clients = await Promise.all([1, 2].map(() => redis.replica({ failFast: false })));
});

const request: StartJobRequest = {
  teamId: 'T0HAND',
  channelId: 'C0HAND',
  threadTs: null,
  requesterId: 'U0ALICE',
  prompt: 'Document the <hand-over> & its card',
  origin: 'command',
};

describe('start hand-overs in Redis', () => {
  it('one replica takes a start at a time; a taker that dies leaves it to the next; done is for good', async () => {
    const [a, b] = clients.map((client) => new RedisStartHandovers(client, 'handover-test:'));
    await a!.handOver({ id: 's1', request, cardTs: '1700000000.000100' });
    await a!.handOver({ id: 's2', request });

    const [takenByB, takenByA] = await Promise.all([b!.take(8, 300), a!.take(8, 300)]);
    const taken = [...takenByA, ...takenByB];
    expect(taken.map((s) => s.id).sort()).toEqual(['s1', 's2']);
    expect(taken.find((s) => s.id === 's1')).toEqual({ id: 's1', request, cardTs: '1700000000.000100' });
    expect(await a!.take(8, 300)).toEqual([]);

    // The taker of s1 finished it; the one of s2 died: s2 is due again once the hold lapses.
    await a!.done('s1');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await b!.take(8, 300)).map((s) => s.id)).toEqual(['s2']);
    await b!.done('s2');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await a!.take(8, 300)).toEqual([]);
  });
});
