import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeConversation, makeFeedback, makeSearches } from '../support/fake-docs-health.js';
import { waitFor } from '../support/http.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp | undefined;
let redis: RedisServer | undefined;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

async function response(t: TestApp, index: number) {
  const found = await waitFor(() => t.slack.responses[index], { what: `response ${index}` });
  return found.body as { response_type?: string; text: string; blocks?: unknown[] };
}

function seed(t: TestApp): void {
  t.docs.health.defaults = {
    searches: makeSearches(30),
    pages: [
      { path: '/guides/auth', thumbsUp: 2, thumbsDown: 9, code: 0, total: 11 },
      { path: '/guides/fine', thumbsUp: 5, thumbsDown: 0, code: 0, total: 5 },
    ],
    feedback: makeFeedback('/guides/auth', ['The token example is wrong']),
    conversations: [
      makeConversation(1, 'How do I rotate keys?'),
      makeConversation(2, 'how do I  rotate keys?'),
      makeConversation(3, 'Where is the CLI?', false),
    ],
  };
}

const healthRequests = (t: TestApp) =>
  t.docs.requestsTo('GET', /^\/v1\/analytics\/[^/]+\/(searches|feedback|feedback\/by-page|assistant)$/);

for (const mode of ['memory', 'redis'] as const) {
  describe(`/docs-health end to end (${mode})`, () => {
    it('answers an ephemeral report of the three sections; a repeated report makes no call', async () => {
      app = await startTestApp({
        env: {
          DOCS_SITE_URL: 'https://docs.acme.dev',
          ...(mode === 'redis' ? { REDIS_URL: redis!.url } : {}),
        },
      });
      seed(app);
      const ack = await app.command({ command: '/docs-health', text: 'top 3' });
      expect(ack.status).toBe(200);
      const body = await response(app, 0);
      expect(body.response_type).toBe('ephemeral');
      const blocks = JSON.stringify(body.blocks);
      expect(blocks).toContain('Searches that found nothing');
      expect(blocks).toContain('https://docs.acme.dev/guides/auth');
      expect(blocks).toContain('The token example is wrong');
      expect(blocks).not.toContain('/guides/fine');
      expect(blocks).toContain('rotate keys?”  asked *2 times*, no answer found');
      expect(blocks).not.toContain('Where is the CLI');
      // top 3: the fourth search gap is not shown.
      expect(blocks).toContain('*3.*');
      expect(blocks).not.toContain('*4.*');
      const calls = healthRequests(app).length;
      expect(calls).toBe(4);
      const searchCall = app.docs.requestsTo('GET', /\/searches$/)[0]!;
      expect(searchCall.query.get('limit')).toBe('100');

      await app.command({ command: '/docs-health', text: 'top 3' });
      await response(app, 1);
      expect(healthRequests(app).length).toBe(calls);
    });

    it('refuses unreadable text at once with no call, and over budget says when it can run', async () => {
      app = await startTestApp({
        env: { ANALYTICS_HOURLY_BUDGET: '2', ...(mode === 'redis' ? { REDIS_URL: redis!.url } : {}) },
      });
      seed(app);
      const bad = await app.command({ command: '/docs-health', text: 'top 26' });
      expect(JSON.stringify(bad.body)).toContain('1–25');
      const help = await app.command({ command: '/docs-health', text: 'help' });
      expect(JSON.stringify(help.body)).toContain('top N');
      await app.command({ command: '/docs-health', text: '30d' });
      const body = await response(app, 0);
      expect(body.text).toContain('analytics budget');
      expect(body.text).toMatch(/Try again after .* \(in about \d+ min\)/);
      expect(healthRequests(app)).toHaveLength(0);
    });
  });
}
