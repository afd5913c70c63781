import { describe, expect, it } from 'vitest';
import { appsOnRedis } from '../support/apps-on-redis.js';
import { FakeDocs } from '../support/fake-docs.js';
import { FakeSlack } from '../support/fake-slack.js';
import { eventEnvelope, nextMessageTs, retryHeaders } from '../support/slack-events.js';
import type { TestApp } from '../support/test-app.js';
import { CHANNEL, PAGE, paste, previewOf, SITE, seedPage, viewsReads } from '../support/unfurl-helpers.js';

/*
 * Docs-link previews at their edges: replicas sharing one snapshot (Redis on a real redis-server), a
 * redelivered event, a used-up analytics budget, Work Objects refused, shared channels, links not ours.
 */

const lab = appsOnRedis();
const settle = () => new Promise((resolve) => setTimeout(resolve, 400));

async function start(env: Record<string, string> = {}, fakes: { slack?: FakeSlack; docs?: FakeDocs } = {}) {
  const t = await lab.start({ ...fakes, env: { DOCS_SITE_URL: SITE, ...env } });
  if (!fakes.docs) seedPage(t.docs);
  t.slack.users.set('U0ALICE', { name: 'alice' });
  return t;
}

const numbersIn = (text: string) => / views, |health_fix_page_0/.test(text);
const textOf = async (t: TestApp, ts: string, url = PAGE) =>
  JSON.stringify((await previewOf(t, ts, url)).blocks);

describe('docs-link previews at the edges', () => {
  it('two replicas on one Redis read the page once between them', async () => {
    const slack = await FakeSlack.start();
    const docs = await FakeDocs.start();
    seedPage(docs);
    try {
      // Report caching off: the snapshot's shared hour is all that keeps the second read away.
      const env = { REDIS_URL: lab.redisUrl(), ANALYTICS_CACHE_TTL_MS: '0' };
      const a = await start(env, { slack, docs });
      const b = await start(env, { slack, docs });
      expect(numbersIn(await textOf(a, await paste(a, [PAGE])))).toBe(true);
      const reads = viewsReads(a);
      expect(reads).toBe(2);
      expect(numbersIn(await textOf(b, await paste(b, [PAGE])))).toBe(true);
      expect(viewsReads(b)).toBe(reads);
    } finally {
      await slack.close();
      await docs.close();
    }
  });

  it('a redelivered link_shared unfurls once', async () => {
    const t = await start();
    const ts = nextMessageTs();
    const unfurlId = `${CHANNEL}.${ts}.retry`;
    t.slack.unfurls.share({ channel: CHANNEL, ts, unfurlId, source: 'conversations_history', urls: [PAGE] });
    const envelope = eventEnvelope({
      ...{ type: 'link_shared', channel: CHANNEL, user: 'U0ALICE', message_ts: ts, unfurl_id: unfurlId },
      ...{ source: 'conversations_history', links: [{ url: PAGE, domain: 'docs.acme.dev' }], event_ts: ts },
    });
    expect((await t.event(envelope)).status).toBe(200);
    await previewOf(t, ts, PAGE);
    expect((await t.event(envelope, retryHeaders(1))).status).toBe(200);
    await settle();
    expect(t.slack.callsOf('chat.unfurl')).toHaveLength(1);
  });

  it('says the numbers are paused when the analytics budget cannot cover a snapshot, and reads nothing', async () => {
    const t = await start({ ANALYTICS_HOURLY_BUDGET: '3' });
    const text = await textOf(t, await paste(t, [PAGE]));
    expect(text).toContain('/guides/rotate-keys');
    expect(text).toContain('analytics budget is used up');
    expect(numbersIn(text)).toBe(false);
    expect(t.docs.requestsTo('GET', /\/analytics\//)).toHaveLength(0);
  });

  it('sends the Block Kit preview alone when Slack refuses Work Objects', async () => {
    const t = await start();
    t.slack.unfurls.workObjects = false;
    const ts = await paste(t, [PAGE]);
    expect(numbersIn(await textOf(t, ts))).toBe(true);
    expect(t.slack.unfurls.refusals).toEqual(['invalid_metadata']);
    expect(t.slack.callsOf('chat.unfurl')).toHaveLength(2);
    expect(t.slack.callsOf('chat.unfurl')[1]?.args.metadata).toBeUndefined();
  });

  it('keeps numbers out of channels shared with other organisations unless ALLOW_EXTERNAL_USERS', async () => {
    const shared = { is_ext_shared_channel: true } as const;
    const t = await start();
    const ts = nextMessageTs();
    const unfurlId = `${CHANNEL}.${ts}.shared`;
    t.slack.unfurls.share({ channel: CHANNEL, ts, unfurlId, source: 'conversations_history', urls: [PAGE] });
    const event = {
      ...{ type: 'link_shared', channel: CHANNEL, user: 'U0ALICE', message_ts: ts, unfurl_id: unfurlId },
      ...{ source: 'conversations_history', links: [{ url: PAGE, domain: 'docs.acme.dev' }], event_ts: ts },
    };
    expect((await t.event({ ...eventEnvelope(event), ...shared })).status).toBe(200);
    expect(numbersIn(await textOf(t, ts))).toBe(false);

    const open = await start({ ALLOW_EXTERNAL_USERS: 'true' });
    const guest = await paste(open, [PAGE], { user: 'U0EXT', user_team: 'T0OTHER' });
    expect(numbersIn(await textOf(open, guest))).toBe(true);
  });

  it('leaves links that are not ours alone, and docs links too without DOCS_SITE_URL', async () => {
    const t = await start();
    await paste(t, [
      'https://docs.acme.dev.evil.example/guides/rotate-keys',
      'https://github.com/acme/docs/pull/999',
      'https://user:pw@docs.acme.dev/guides/rotate-keys',
    ]);
    const off = await lab.start({});
    off.slack.users.set('U0ALICE', { name: 'alice' });
    await paste(off, [PAGE]);
    await settle();
    expect(t.slack.callsOf('chat.unfurl')).toHaveLength(0);
    expect(off.slack.callsOf('chat.unfurl')).toHaveLength(0);
  });
});
