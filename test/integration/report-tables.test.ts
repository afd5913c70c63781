import { afterEach, describe, expect, it } from 'vitest';
import { addDays, localDate } from '../../src/insights/ranges/dates.js';
import type { ViewRow } from '../support/fake-docs.js';
import { waitFor } from '../support/http.js';
import { blockActionsPayload } from '../support/slack-interactions.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

type Block = Record<string, unknown> & { type: string };

/** Twelve pages over the default range (the last 7 full UTC days) and a previous week to compare with. */
function seed(t: TestApp): ViewRow[] {
  const today = localDate(Date.now(), 'UTC');
  const from = addDays(today, -7);
  const rows: ViewRow[] = Array.from({ length: 12 }, (_, i) => ({
    path: `/docs/page-${i}`,
    human: (12 - i) * 70,
    ai: (12 - i) * 30,
    total: (12 - i) * 100,
  }));
  t.docs.viewsByRange.set(`${from}..${today}`, rows);
  t.docs.viewsByRange.set(`${addDays(from, -7)}..${from}`, [
    { path: '/docs/old', human: 500, ai: 100, total: 600 },
  ]);
  return rows;
}

async function answer(t: TestApp): Promise<{ text: string; blocks: Block[] }> {
  const response = await waitFor(() => t.slack.responses[0], { what: 'report' });
  return response.body as { text: string; blocks: Block[] };
}

describe('/docs-views top pages as a data table', () => {
  it('sends the table, with a headline first, and not the list it stands in for', async () => {
    app = await startTestApp({ env: { REPORT_CHARTS: 'false', DOCS_SITE_URL: 'https://docs.acme.dev' } });
    seed(app);
    await app.command({ command: '/docs-views', text: 'top 10' });
    const { blocks } = await answer(app);
    expect(app.slack.blockKit.refusals).toEqual([]);
    expect(blocks[1]).toMatchObject({ block_id: 'report_headline' });
    expect(JSON.stringify(blocks[1])).toContain('*Last 7 days: 7,800 views*, ▲ 1200% on the 7 days before');
    const table = blocks.find((b) => b.type === 'data_table') as unknown as {
      caption: string;
      rows: unknown[][];
    };
    expect(table.caption).toBe('Top 10 pages');
    expect(table.rows).toHaveLength(11);
    expect(JSON.stringify(blocks)).not.toContain('*Top 10 pages*');
  });

  it('compares each page with the week before, read from the docs platform in one call', async () => {
    app = await startTestApp({ env: { REPORT_CHARTS: 'false' } });
    seed(app);
    const today = localDate(Date.now(), 'UTC');
    const from = addDays(today, -7);
    // The week before: page-0 at 1,000 (now 1,200), page-1 at 1,100 (now 1,100), page-2 at 1,250 (now 1,000).
    app.docs.viewsByRange.set(`${addDays(from, -7)}..${from}`, [
      { path: '/docs/page-0', human: 700, ai: 300, total: 1000 },
      { path: '/docs/page-1', human: 770, ai: 330, total: 1100 },
      { path: '/docs/page-2', human: 900, ai: 350, total: 1250 },
    ]);
    await app.command({ command: '/docs-views', text: 'top 4' });
    const { blocks } = await answer(app);
    const table = blocks.find((b) => b.type === 'data_table') as unknown as {
      rows: { text?: string }[][];
    };
    expect(table.rows.map((cells) => cells[2]?.text)).toEqual([
      'vs last period',
      '▲ 20%',
      'no change',
      '▼ 20%',
      'new',
    ]);
    const before = app.docs
      .requestsTo('GET', /^\/v1\/analytics\/[^/]+\/views$/)
      .filter((r) => r.query.get('dateTo') === from);
    expect(before).toHaveLength(1);
  });

  it('with the week before unreadable the report still arrives, its pages without a figure', async () => {
    app = await startTestApp({ env: { REPORT_CHARTS: 'false' } });
    seed(app);
    app.slack.blockKit.refuseNewBlocks = true;
    const from = addDays(localDate(Date.now(), 'UTC'), -7);
    app.docs.inject(
      { method: 'GET', path: /\/views$/, query: (query) => query.get('dateTo') === from },
      { kind: 'status', status: 400, body: JSON.stringify({ error: 'Invalid query parameters' }) },
      5,
    );
    await app.command({ command: '/docs-views', text: 'top 4' });
    const { blocks } = await answer(app);
    const json = JSON.stringify(blocks);
    expect(json).toContain('*Top 4 pages* (█ human · ░ AI)');
    expect(json).not.toContain('last period');
  });

  it('where Slack refuses the table (invalid_blocks) the report still arrives, with the list in its place', async () => {
    app = await startTestApp({ env: { REPORT_CHARTS: 'false', DOCS_SITE_URL: 'https://docs.acme.dev' } });
    seed(app);
    app.slack.blockKit.refuseNewBlocks = true;
    await app.command({ command: '/docs-views', text: 'top 10' });
    const { blocks } = await answer(app);
    // Refused once with the table; taken without it.
    expect(app.slack.blockKit.refusals).toHaveLength(1);
    expect(app.slack.blockKit.refusals[0]?.verdict).toMatchObject({ error: 'invalid_blocks' });
    expect(blocks.some((b) => b.type === 'data_table')).toBe(false);
    const json = JSON.stringify(blocks);
    expect(json).toContain('*Top 10 pages* (█ human · ░ AI)');
    expect(json).toContain('*1.* <https://docs.acme.dev/docs/page-0|/docs/page-0>  *1,200*');
    expect(json).toContain('*10.* <https://docs.acme.dev/docs/page-9|/docs/page-9>');
    expect(json).toContain('Post to channel');
    expect(blocks[1]).toMatchObject({ block_id: 'report_headline' });
  });
});

describe('the private report buttons', () => {
  /** A click on a button of the ephemeral report, as Slack sends it. */
  function click(t: TestApp, actionId: string, value: string, triggerId?: string) {
    return t.interaction(
      blockActionsPayload({
        triggerId: triggerId ?? `${Date.now()}.1.${Math.random().toString(16).slice(2)}`,
        action: { action_id: actionId, block_id: 'b1', value },
        container: {
          type: 'message',
          channelId: 'C0DOCS',
          messageTs: '1.000001',
          responseUrl: t.slack.responseUrl('button'),
        },
      }),
    );
  }

  const button = (blocks: Block[], actionId: string) =>
    blocks
      .flatMap((b) => (b.type === 'actions' ? (b.elements as Array<Record<string, unknown>>) : []))
      .find((e) => e.action_id === actionId);

  it('CSV sends every page to the clicker privately (their DM); Schedule… opens the weekly-post form', async () => {
    app = await startTestApp({ env: { REPORT_CHARTS: 'false' } });
    const rows = seed(app);
    await app.command({ command: '/docs-views', text: 'top 3' });
    const { blocks } = await answer(app);
    expect(button(blocks, 'docs_views_post')).toBeDefined();

    await click(app, 'docs_views_csv', String(button(blocks, 'docs_views_csv')!.value));
    const done = await app.slack.waitForCall('files.completeUploadExternal');
    const opened = await app.slack.waitForCall('conversations.open');
    // The DM with the person who clicked, never the channel the report was asked in.
    expect(done.args.channel_id).toBe(`D${String(opened.args.users).replace(/^U/, '')}`);
    const upload = await waitFor(() => app!.slack.uploads[0], { what: 'uploaded CSV' });
    // Every page, not only the three shown.
    for (const row of rows) expect(upload.content).toContain(row.path);
    const said = await waitFor(() => app!.slack.responses[1], { what: 'CSV reply' });
    expect(said.body).toMatchObject({ response_type: 'ephemeral', replace_original: false });
    expect(String(said.body.text)).toBe('I sent you the CSV of every page in a direct message.');

    // Schedule…: Home's weekly-post form, page views in this channel already chosen.
    const triggerId = app.slack.surfaces.mintTriggerId('U0ALICE');
    await click(app, 'docs_views_schedule', String(button(blocks, 'docs_views_schedule')!.value), triggerId);
    const formOpened = await app.slack.waitForCall('views.open', (c) => c.args.trigger_id === triggerId);
    const form = JSON.stringify(formOpened.args.view);
    expect(form).toContain('home_weekly_form');
    expect(form).toContain('"initial_conversation":"C0DOCS"');
    expect(form).toContain(
      '"initial_option":{"text":{"type":"plain_text","text":"Page views"},"value":"page_views"}',
    );
    // A trigger Slack no longer takes: the command that does the same, privately.
    await click(
      app,
      'docs_views_schedule',
      String(button(blocks, 'docs_views_schedule')!.value),
      'stale.1.0',
    );
    const schedule = await waitFor(() => app!.slack.responses[2], { what: 'schedule reply' });
    expect(schedule.body).toMatchObject({ response_type: 'ephemeral', replace_original: false });
    expect(String(schedule.body.text)).toContain('`/docs-views schedule monday 09:00 Europe/Berlin`');
    expect(app.slack.messages.filter((m) => m.channel === 'C0DOCS')).toHaveLength(0);
  });
});
