import { afterEach, describe, expect, it } from 'vitest';
import { FAKE_GITHUB_TOKEN, FakeGitHub } from '../support/fake-github.js';
import { waitFor } from '../support/http.js';
import { blockActionsPayload, viewSubmissionPayload } from '../support/slack-interactions.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import {
  CHANNEL,
  PAGE,
  paste,
  previewOf,
  previewUntil,
  SITE,
  seedPage,
  viewsReads,
} from '../support/unfurl-helpers.js';

/*
 * Issue 29, "Docs links that show how the page is doing": a pasted docs link or PR link of one of our jobs →
 * link_shared (signed, as Slack sends it) → one chat.unfurl through the outbox, checked by a fake Slack that
 * accepts it only for the announced message and its URLs. Real app, fake docs platform, fake GitHub.
 */

const PR_NUMBER = 7;
const PR = `https://github.com/acme/docs/pull/${PR_NUMBER}`;
type Json = Record<string, unknown>;

const apps: TestApp[] = [];
const others: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.stop();
  for (const other of others.splice(0)) await other.close();
});

async function start(env: Record<string, string> = {}): Promise<TestApp> {
  const t = await startTestApp({ env: { DOCS_SITE_URL: SITE, ...env } });
  apps.push(t);
  seedPage(t.docs);
  t.slack.users.set('U0ALICE', { name: 'alice' });
  return t;
}

describe('docs-link previews', () => {
  it('unfurls a pasted docs link with the page’s numbers and a Fix button that opens the job form', async () => {
    const t = await start();
    const ts = await paste(t, [PAGE]);
    const preview = await previewOf(t, ts, PAGE);
    const text = JSON.stringify(preview.blocks);
    // Two lines: the page with Fix beside it, then its week in one context line.
    expect((preview.blocks as Array<{ type: string }>).map((b) => b.type)).toEqual(['section', 'context']);
    expect(text).toContain('150 views'); // this week, people + AI
    expect(text).toContain('(▲ 36%)'); // 150 against 110
    expect(text).toContain('20% AI');
    expect(text).toContain('👎 8');
    expect(text).toContain('rotate');
    expect(text).not.toContain('up to');
    expect(text).not.toContain('"style":"primary"');
    expect(text).not.toContain('billing export'); // not near this page
    // Reader text is sanitised as in /docs-health: no live mentions, no bidi overrides.
    expect(text).not.toContain('<!channel>');
    expect(text).not.toContain('<@U0BOSS>');
    expect(text).not.toContain('\u202E');
    expect(t.slack.unfurls.refusals).toEqual([]);
    expect(t.slack.callsOf('chat.unfurl')).toHaveLength(1);
    // The Work Object for clients that show them.
    expect(t.slack.unfurls.entities.get(`${CHANNEL}:${ts}`)?.get(PAGE)?.entity_type).toBe(
      'slack#/entities/content_item',
    );

    const blocks = preview.blocks as Array<{ type: string; accessory?: Json }>;
    const fix = blocks.map((b) => b.accessory).find((e) => e?.action_id === 'health_fix_page_0')!;
    expect(fix).toBeDefined();
    const payload = blockActionsPayload({
      triggerId: t.slack.surfaces.mintTriggerId('U0ALICE'),
      action: { action_id: String(fix.action_id), value: String(fix.value) },
      container: { type: 'message', channelId: CHANNEL, messageTs: ts, responseUrl: t.slack.responseUrl() },
    });
    // A click in an app unfurl comes from a message attachment.
    payload.container = {
      ...{ type: 'message_attachment', message_ts: ts, attachment_id: 1, channel_id: CHANNEL },
      ...{ is_ephemeral: false, is_app_unfurl: true, app_unfurl_url: PAGE },
    };
    expect((await t.interaction(payload)).status).toBe(200);
    const modal = await waitFor(() => [...t.slack.surfaces.modals.values()][0], { what: 'the job form' });
    const form = JSON.stringify(modal.view);
    expect(form).toContain('/guides/rotate-keys');
    expect(form).toContain('8 👎');
    expect(form).not.toContain('Step 3 is wrong'); // reader text: attached at submit, not in the box
    const closed = await t.interaction(
      viewSubmissionPayload({
        view: modal.view as Json,
        values: { health_instruction: { instruction: { type: 'plain_text_input', value: 'Fix step 3' } } },
      }),
    );
    expect(closed.body).toBe('');
    const job = await waitFor(() => [...t.docs.jobs.values()][0], { what: 'the fix job' });
    const [prompt] = job.prompts as [string];
    expect(prompt.startsWith('Fix step 3\n\n')).toBe(true);
    // The reader's comment reaches the agent inside one fenced block of data.
    const comment = prompt.split('\n').find((line) => line.includes('Step 3 is wrong'));
    expect(comment?.startsWith('⟦reader input⟧')).toBe(true);
    expect(comment?.endsWith('⟦end of reader input⟧')).toBe(true);
    expect(prompt).toContain('Searches near this page that found nothing');
    expect(prompt).toContain('120 by people and 30 by AI');
    const card = await waitFor(
      () => t.slack.messages.find((m) => m.bot_id && JSON.stringify(m.blocks).includes(job.id)),
      { what: 'the fix job’s card' },
    );
    expect(card.channel).toBe(CHANNEL);
    // In the thread of the message whose link was previewed, as a shortcut's or a reaction's card.
    expect(card.thread_ts).toBe(ts);
    expect(JSON.stringify(card.blocks)).toContain('From a docs-link preview');
    expect(JSON.stringify(card.blocks)).toContain('the page `/guides/rotate-keys` (8 👎)');
  });

  it('reads the analytics once per page per hour: a second paste of the page costs no read', async () => {
    // Report caching off: only the snapshot's own hour stands between two pastes and two reads.
    const t = await start({ ANALYTICS_CACHE_TTL_MS: '0' });
    const first = await paste(t, [PAGE]);
    await previewOf(t, first, PAGE);
    const reads = viewsReads(t);
    const searches = t.docs.requestsTo('GET', /\/searches$/).length;
    expect(reads).toBe(2); // this week and the week before, one page each
    const second = await paste(t, [`${PAGE}/#step-3`]);
    await previewOf(t, second, `${PAGE}/#step-3`);
    expect(viewsReads(t)).toBe(reads);
    expect(t.docs.requestsTo('GET', /\/searches$/).length).toBe(searches);
    expect(t.slack.callsOf('chat.unfurl')).toHaveLength(2);
  });

  it('gives guests and people of other organisations a preview without numbers', async () => {
    const t = await start();
    t.slack.users.set('U0GUEST', { name: 'guest', is_restricted: true } as never);
    const guest = await paste(t, [PAGE], { user: 'U0GUEST' });
    const external = await paste(t, [PAGE], { user: 'U0EXT', user_team: 'T0OTHER' });
    for (const ts of [guest, external]) {
      const text = JSON.stringify((await previewOf(t, ts, PAGE)).blocks);
      expect(text).toContain('/guides/rotate-keys');
      expect(text).not.toMatch(/Views|👎|health_fix|rotate <|150/);
    }
    expect(viewsReads(t)).toBe(0);
    // Someone the access rules exclude gets nothing at all.
    const denied = await start({ ALLOWED_USER_IDS: 'U0BOB' });
    const ts = await paste(denied, [PAGE]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(denied.slack.callsOf('chat.unfurl')).toHaveLength(0);
    expect(denied.slack.unfurls.previewsOf(CHANNEL, ts).size).toBe(0);
  });

  it('unfurls a PR of one of our jobs with its state, checks and requester, and names it on the page it changed', async () => {
    const github = await FakeGitHub.start();
    others.push(github);
    github.addPull('acme', 'docs', PR_NUMBER, { files: ['docs/guides/rotate-keys.mdx', 'package.json'] });
    github.pull('acme', 'docs', PR_NUMBER).checkRuns.push({
      ...{ id: 1, name: 'build', status: 'completed', conclusion: 'success' },
    });
    const t = await start({
      ...{ GITHUB_TOKEN: FAKE_GITHUB_TOKEN, GITHUB_API_URL: github.url },
      ...{ PR_FOLLOW_INTERVAL_MS: '40', PR_FOLLOW_MAX_INTERVAL_MS: '200' },
    });
    await t.command({ text: 'Fix the rotate keys page', user_id: 'U0ALICE', channel_id: CHANNEL });
    const job = await waitFor(() => [...t.docs.jobs.values()][0], { what: 'job' });
    t.docs.complete(job.id, PR);
    await waitFor(() => t.slack.messages.some((m) => m.thread_ts && m.text.includes(PR)), {
      what: 'the terminal reply with the PR',
    });
    const openText = await previewUntil(t, PR, (text) => text.includes('passing'), 'checks passing');
    expect(openText).toContain(job.id);
    expect(openText).toContain('Open');
    expect(openText).toContain('passing');
    expect(openText).toContain('<@U0ALICE>');

    github.merge('acme', 'docs', PR_NUMBER, 'octo-cat', new Date().toISOString());
    await previewUntil(t, PR, (text) => text.includes('Merged'), 'merged in the PR preview');
    const page = await paste(t, [PAGE]);
    const pageText = JSON.stringify((await previewOf(t, page, PAGE)).blocks);
    expect(pageText).toContain('last fixed');
    expect(pageText).toContain(PR);
  });
});
