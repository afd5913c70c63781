import { afterEach, describe, expect, it } from 'vitest';
import { STORE_AWAY_NOTE } from '../../src/slack/listeners/respond-safely.js';
import { waitFor } from '../support/http.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/*
 * Issue 37: while Redis is down, answers that go through the outbox (in Redis) were lost: `/docs-agent
 * status` got nothing. The real app on a real redis-server, stopped mid-test: every command is answered,
 * an answer that cannot be owed is sent directly with a word about the outage.
 */
let redis: RedisServer | undefined;
let app: TestApp | undefined;
afterEach(async () => {
  await app?.stop();
  await redis?.stop();
});

describe('answers while the state store is away (redis-server stopped mid-test)', () => {
  it('list, status and a report are each answered', async () => {
    redis = await startRedisServer();
    app = await startTestApp({ env: { REDIS_URL: redis.url } });
    const t = app;
    await t.command({ text: 'Document the outage page' });
    const job = await waitFor(() => (t.docs.jobs.size === 1 ? t.docs.onlyJob : undefined), { what: 'job' });
    await waitFor(() => t.slack.messages.some((m) => JSON.stringify(m).includes(job.id)), { what: 'card' });
    // While Redis is up the same status is owed through the outbox, without the note.
    await t.command({ text: `status ${job.id}` });
    const owed = await waitFor(() => t.slack.responses.at(-1), { what: 'the owed status' });
    expect(JSON.stringify(owed.body)).toContain(job.id);
    expect(JSON.stringify(owed.body)).not.toContain(STORE_AWAY_NOTE);

    await redis.stop();
    const answered = async (fields: { text: string; command?: string }) => {
      const before = t.slack.responses.length;
      expect((await t.command(fields)).status).toBe(200);
      const answer = await waitFor(() => t.slack.responses[before], { what: `an answer to ${fields.text}` });
      return JSON.stringify(answer.body);
    };
    expect(await answered({ text: 'list' })).toMatch(/can.t reach my storage/);
    const status = await answered({ text: `status ${job.id}` });
    expect(status).toContain(STORE_AWAY_NOTE);
    // The report's hourly analytics budget is kept in Redis too: it says so, not "something went wrong".
    expect(await answered({ command: '/docs-views', text: '7d' })).toMatch(/can.t reach my storage/);
  });
});
