import { afterEach, describe, expect, it } from 'vitest';
import { addDays, localDate } from '../../src/insights/ranges/dates.js';
import { makeViewRows, type ViewRow } from '../support/fake-docs.js';
import { waitFor } from '../support/http.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

/** The range `/docs-views` uses by default right now: the last 7 full UTC days, exclusive dateTo. */
function last7Days(): { from: string; to: string } {
  const today = localDate(Date.now(), 'UTC');
  return { from: addDays(today, -7), to: today };
}

function sortedPaths(rows: ViewRow[]): string[] {
  return [...rows].sort((a, b) => b.total - a.total || a.path.localeCompare(b.path)).map((r) => r.path);
}

async function reportResponse(t: TestApp, index: number) {
  const response = await waitFor(() => t.slack.responses[index], { what: `response ${index}` });
  return response.body as { response_type: string; text: string; blocks?: Array<Record<string, unknown>> };
}

function viewsRequests(t: TestApp) {
  return t.docs.requestsTo('GET', /^\/v1\/analytics\/[^/]+\/views$/);
}

describe('/docs-views end to end', () => {
  it('reports the right top pages and totals from 10,000 shuffled paths with the fewest upstream calls', async () => {
    app = await startTestApp({ env: { DOCS_SITE_URL: 'https://docs.acme.dev' } });
    const { from, to } = last7Days();
    const rows = makeViewRows(10_000);
    app.docs.viewsByRange.set(`${from}..${to}`, rows);
    const previous = [{ path: '/docs/old', human: 100, ai: 50, total: 150 }];
    app.docs.viewsByRange.set(`${addDays(from, -7)}..${from}`, previous);

    const ack = await app.command({ command: '/docs-views', text: 'top 5' });
    expect(ack.status).toBe(200);
    const body = await reportResponse(app, 0);
    expect(body.response_type).toBe('ephemeral');
    const blocks = JSON.stringify(body.blocks);

    const top5 = sortedPaths(rows).slice(0, 5);
    for (const path of top5) expect(blocks).toContain(`https://docs.acme.dev${path}`);
    expect(blocks).not.toContain(sortedPaths(rows)[5]);
    const first = rows.find((r) => r.path === top5[0])!;
    // The ranking as a data table where Slack takes it: page link, views, people, AI share.
    const table = body.blocks?.find((b) => b.type === 'data_table') as { rows: unknown[][] } | undefined;
    expect(table?.rows[1]?.[1]).toEqual({
      type: 'raw_number',
      value: first.total,
      text: first.total.toLocaleString('en-US'),
    });
    expect(JSON.stringify(table?.rows[1]?.[0])).toContain(`"url":"https://docs.acme.dev${first.path}"`);
    const total = rows.reduce((sum, r) => sum + r.total, 0);
    expect(blocks).toContain(`*Total views*\\n${total.toLocaleString('en-US')}`);
    expect(blocks).toContain('10,000 pages counted');
    expect(blocks).toContain('Post to channel');
    // The range's first day as people read it ("30 Nov – 6 Dec", or "1–7 Dec" within one month), not its ISO date.
    const [day, month] = new Date(`${from}T00:00:00Z`)
      .toLocaleString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' })
      .split(' ');
    expect(body.text).toMatch(new RegExp(`^Page views ${day}( ${month} –|–\\d+ ${month} )`));
    expect(body.text).not.toContain(from);

    // 10,000 paths at limit=250: 40 calls for the range, plus one call for the previous period (its totals and
    // first 250 pages, for "vs last period").
    const calls = viewsRequests(app);
    const rangeCalls = calls.filter((r) => r.query.get('dateFrom') === from && r.query.get('dateTo') === to);
    expect(rangeCalls).toHaveLength(40);
    expect(rangeCalls.map((r) => r.query.get('limit'))).toEqual(Array(40).fill('250'));
    expect(rangeCalls.map((r) => Number(r.query.get('offset')))).toEqual(
      Array.from({ length: 40 }, (_, i) => i * 250),
    );
    const previousCalls = calls.filter((r) => r.query.get('dateTo') === from);
    expect(previousCalls).toHaveLength(1);
    expect(previousCalls[0]!.query.get('limit')).toBe('250');
    expect(previousCalls[0]!.query.get('offset')).toBe('0');
    expect(calls).toHaveLength(41);
    // Change against the previous period is computed from its totals.
    expect(blocks).toMatch(/▲ [\d.]+% vs previous 7 days/);
  });

  it('makes no upstream call for a repeated report inside the cache TTL, and posts from the cache', async () => {
    app = await startTestApp();
    app.docs.defaultViews = makeViewRows(600);
    await app.command({ command: '/docs-views', text: '7d top 3' });
    await reportResponse(app, 0);
    const afterFirst = viewsRequests(app).length;
    expect(afterFirst).toBe(3 + 1);

    // Served from the cache, but acknowledged first like every report (the cache may live in Redis).
    const ack = await app.command({ command: '/docs-views', text: 'top 10 /docs' });
    expect(ack.body).toBe('');
    const second = await reportResponse(app, 1);
    expect(second.response_type).toBe('ephemeral');
    expect(JSON.stringify(second.blocks)).toContain('Pages under `/docs`');
    expect(viewsRequests(app)).toHaveLength(afterFirst);

    // "Post to channel" re-renders from the cached range: a channel message, still no upstream call.
    const button = (second.blocks ?? [])
      .flatMap((b) => (b.type === 'actions' ? (b.elements as Array<Record<string, unknown>>) : []))
      .find((e) => e.action_id === 'docs_views_post');
    expect(button).toBeDefined();
    expect(String(button!.value).length).toBeLessThanOrEqual(2000);
    const click = await app.interaction({
      type: 'block_actions',
      team: { id: 'T0TEAM', domain: 'acme' },
      user: { id: 'U0ALICE', name: 'alice', team_id: 'T0TEAM' },
      api_app_id: 'A0DOCSAGENT',
      token: 'deprecated',
      trigger_id: '1.2.3',
      container: { type: 'message', message_ts: '1.000001', channel_id: 'C0DOCS', is_ephemeral: true },
      channel: { id: 'C0DOCS', name: 'docs' },
      response_url: app.slack.responseUrl('button'),
      actions: [
        {
          type: 'button',
          action_id: 'docs_views_post',
          block_id: 'b1',
          value: button!.value,
          action_ts: '1.5',
        },
      ],
    });
    expect(click.status).toBe(200);
    const posted = await app.slack.waitForCall('chat.postMessage');
    expect(posted.args.channel).toBe('C0DOCS');
    expect(JSON.stringify(posted.args.blocks)).toContain('requested by <@U0ALICE>');
    expect(JSON.stringify(posted.args.blocks)).not.toContain('Post to channel');
    expect(viewsRequests(app)).toHaveLength(afterFirst);
  });

  it('uploads a CSV of every page with files upload v2', async () => {
    app = await startTestApp();
    const rows = makeViewRows(700);
    app.docs.defaultViews = rows;
    await app.command({ command: '/docs-views', text: 'csv last-week' });
    await app.slack.waitForCall('files.completeUploadExternal');
    const upload = await waitFor(() => app!.slack.uploads[0], { what: 'uploaded bytes' });
    const lines = upload.content.trim().split('\r\n');
    expect(lines[0]).toBe('rank,path,total,human,ai');
    expect(lines).toHaveLength(701);
    const top = sortedPaths(rows)[0]!;
    const topRow = rows.find((r) => r.path === top)!;
    expect(lines[1]).toBe(`1,${top},${topRow.total},${topRow.human},${topRow.ai}`);
    const complete = app.slack.callsOf('files.completeUploadExternal')[0]!;
    expect(complete.args.channel_id).toBe('C0DOCS');
    const getUrl = app.slack.callsOf('files.getUploadURLExternal')[0]!;
    expect(String(getUrl.args.filename)).toMatch(
      /^page-views-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}-exclusive\.csv$/,
    );
  });

  it('answers unknown tokens ephemerally, naming the token, with no API call', async () => {
    app = await startTestApp();
    const ack = await app.command({ command: '/docs-views', text: '30d top 10 <!channel>' });
    const body = JSON.parse(ack.body) as { response_type: string; text: string };
    expect(body.response_type).toBe('ephemeral');
    expect(body.text).toContain('`&lt;!channel&gt;`');
    expect(body.text).not.toContain('<!channel>');

    const days = JSON.parse((await app.command({ command: '/docs-views', text: '400d' })).body) as {
      text: string;
    };
    expect(days.text).toContain('`400d`');
    const help = JSON.parse((await app.command({ command: '/docs-views', text: 'help' })).body) as {
      blocks: unknown[];
    };
    expect(JSON.stringify(help.blocks)).toContain('YYYY-MM-DD..YYYY-MM-DD');
    expect(viewsRequests(app)).toHaveLength(0);
  });

  it('refuses before the hourly budget runs out and says when it frees up', async () => {
    app = await startTestApp({ env: { ANALYTICS_HOURLY_BUDGET: '3' } });
    app.docs.defaultViews = makeViewRows(10);
    await app.command({ command: '/docs-views', text: '7d' });
    await reportResponse(app, 0);
    expect(viewsRequests(app)).toHaveLength(2);
    await app.command({ command: '/docs-views', text: '30d' });
    const refused = await reportResponse(app, 1);
    expect(refused.text).toContain('analytics budget');
    expect(refused.text).toMatch(/Try again after <!date\^\d+\^/);
    expect(viewsRequests(app)).toHaveLength(2);
  });

  it('explains upstream failures without leaking the API key', async () => {
    app = await startTestApp();
    app.docs.inject(
      { path: '/v1/analytics' },
      { kind: 'status', status: 400, body: JSON.stringify({ error: 'dateFrom is invalid' }) },
    );
    await app.command({ command: '/docs-views', text: 'yesterday' });
    const bad = await reportResponse(app, 0);
    expect(bad.text).toContain('dateFrom is invalid');
    app.docs.inject({ path: '/v1/analytics' }, { kind: 'status', status: 500 }, 2);
    await app.command({ command: '/docs-views', text: '90d' });
    const down = await reportResponse(app, 1);
    expect(down.text).toContain('Try again in a few minutes');
    expect(app.slack.everythingSent()).not.toContain('svc_');
  });

  it('a report Slack did not take through response_url (a 5xx) is owed and sent again: the user still gets it', async () => {
    app = await startTestApp();
    const { from, to } = last7Days();
    app.docs.viewsByRange.set(`${from}..${to}`, makeViewRows(20));
    app.slack.inject('response_url', { kind: 'status', status: 503 });
    await app.command({ command: '/docs-views', text: '7d top 5' });
    const report = await reportResponse(app, 0);
    expect(report.response_type).toBe('ephemeral');
    expect(JSON.stringify(report.blocks)).toContain('/docs/');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(app.slack.responses).toHaveLength(1);
  });
});
