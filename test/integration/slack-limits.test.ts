import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../support/http.js';
import { BOT_USER_ID, eventEnvelope, messageEvent } from '../support/slack-events.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

// biome-ignore lint/suspicious/noExplicitAny: Block Kit JSON as Slack received it
type Blocks = any[];

describe('messages Slack accepts, end to end against the enforcing fake Slack', () => {
  it('a top 50 report with 200-character paths and DOCS_SITE_URL is shown, then posted to the channel', async () => {
    app = await startTestApp({ env: { DOCS_SITE_URL: 'https://docs.acme.dev/en/latest' } });
    app.docs.defaultViews = Array.from({ length: 80 }, (_, i) => ({
      path: `/${`guides-${i}/`.repeat(25)}`.slice(0, 200),
      human: 1000 - i,
      ai: 10,
      total: 1010 - i,
    }));

    await app.command({ command: '/docs-views', text: 'top 50' });
    const shown = await waitFor(() => app!.slack.responses[0], { what: 'ephemeral report' });
    const blocks = shown.body.blocks as Blocks;
    // All 50 as a table: the first rows linked while the rest still fit as plain paths.
    const table = blocks.find((b) => b.type === 'data_table');
    expect(table.caption).toBe('Top 50 pages');
    expect(table.rows).toHaveLength(51);
    expect(table.rows[1][0].type).toBe('rich_text');
    expect(table.rows[50][0].type).toBe('raw_text');
    const button = blocks.flatMap((b) => (b.type === 'actions' ? b.elements : []))[0];

    await app.interaction({
      type: 'block_actions',
      team: { id: 'T0TEAM', domain: 'acme' },
      user: { id: 'U0ALICE', name: 'alice', team_id: 'T0TEAM' },
      api_app_id: 'A0DOCSAGENT',
      token: 'deprecated',
      trigger_id: '1.2.3',
      container: { type: 'message', message_ts: '1.000001', channel_id: 'C0DOCS', is_ephemeral: true },
      channel: { id: 'C0DOCS', name: 'docs' },
      response_url: app.slack.responseUrl('post-button'),
      actions: [
        {
          type: 'button',
          action_id: 'docs_views_post',
          block_id: 'b1',
          value: button.value,
          action_ts: '1.5',
        },
      ],
    });
    const posted = await waitFor(() => app!.slack.messages.find((m) => m.channel === 'C0DOCS'), {
      what: 'report in the channel',
    });
    const json = JSON.stringify(posted.blocks);
    expect(json).toContain('"caption":"Top 50 pages"');
    const answer = await waitFor(() => app!.slack.responses.find((r) => r.path.endsWith('/post-button')), {
      what: 'button answer',
    });
    expect(answer.body.text).toBe('Posted the report to the channel.');
    expect(app.slack.blockKit.refusals).toEqual([]);
  });

  it('a report Slack refuses as too long is posted as text, and a refusal that would repeat is not "try again"', async () => {
    app = await startTestApp();
    app.docs.defaultViews = [{ path: '/docs/a', human: 5, ai: 1, total: 6 }];
    await app.command({ command: '/docs-views', text: 'top 5' });
    const shown = await waitFor(() => app!.slack.responses[0], { what: 'ephemeral report' });
    const value = (shown.body.blocks as Blocks).flatMap((b) => (b.type === 'actions' ? b.elements : []))[0]
      .value;
    const click = (id: string) =>
      app!.interaction({
        type: 'block_actions',
        team: { id: 'T0TEAM', domain: 'acme' },
        user: { id: 'U0ALICE', name: 'alice', team_id: 'T0TEAM' },
        api_app_id: 'A0DOCSAGENT',
        token: 'deprecated',
        trigger_id: '1.2.3',
        container: { type: 'message', message_ts: '1.000001', channel_id: 'C0DOCS', is_ephemeral: true },
        channel: { id: 'C0DOCS', name: 'docs' },
        response_url: app!.slack.responseUrl(id),
        actions: [{ type: 'button', action_id: 'docs_views_post', block_id: 'b1', value, action_ts: '1.5' }],
      });
    const answerTo = (id: string) =>
      waitFor(() => app!.slack.responses.find((r) => r.path.endsWith(`/${id}`)), { what: `answer ${id}` });

    app.slack.inject('chat.postMessage', { kind: 'error', error: 'msg_blocks_too_long' });
    await click('first');
    expect((await answerTo('first')).body.text).toBe('Posted the report to the channel.');
    const posted = app.slack.messages.find((m) => m.channel === 'C0DOCS');
    expect(posted?.blocks).toBeUndefined();
    expect(posted?.text).toContain('6 total');

    // Refused even as text: the user learns that the same post would be refused again.
    app.slack.inject('chat.postMessage', { kind: 'error', error: 'msg_too_long' }, 2);
    await click('second');
    const answer = String((await answerTo('second')).body.text);
    expect(answer).toContain('posting it again will not help');
    expect(answer).not.toMatch(/try again/i);
  });

  it('a PR link over 3,000 characters is reported as a pull request, shown as a text link', async () => {
    app = await startTestApp();
    await app.command({ text: 'Document the long links' });
    const job = await waitFor(() => (app!.docs.jobs.size === 1 ? app!.docs.onlyJob : undefined), {
      what: 'job',
    });
    const card = await waitFor(() => app!.slack.messages.find((m) => !m.thread_ts), { what: 'card' });
    const prLink = `https://github.com/acme/docs/pull/42?${'tab=files&'.repeat(330)}`;
    expect(prLink.length).toBeGreaterThan(3000);
    // Slack refuses the first try of the reply's blocks: the text that remains still pings and links.
    app.slack.inject('chat.postMessage', { kind: 'error', error: 'invalid_blocks' });
    app.docs.complete(job.id, prLink);
    const reply = await waitFor(() => app!.slack.threadReplies(card.channel, card.ts)[0], { what: 'reply' });
    expect(reply.text).toContain('<@U0ALICE>');
    expect(reply.text).toContain(prLink);
    expect(reply.text).not.toContain('without changing any files');
    const updated = await waitFor(
      () => {
        const json = JSON.stringify(app!.slack.message(card.channel, card.ts)?.blocks);
        return json.includes('Done: pull request opened') ? json : undefined;
      },
      { what: 'final card' },
    );
    expect(updated).toContain(`"type":"link","url":"${prLink}"`);
    expect(app.slack.blockKit.refusals).toEqual([]);
  });

  it('an ephemeral answer Slack refuses is sent again as plain text instead of silence', async () => {
    // An admin: only admins get the platform's answer for a job the bot does not follow.
    app = await startTestApp({ env: { ADMIN_USER_IDS: 'U0ALICE' } });
    app.slack.blockKit.refuseNextBlocksResponse('invalid_blocks');
    await app.command({ text: 'status job_missing', response_url: app.slack.responseUrl('status') });
    const answer = await waitFor(() => app!.slack.responses.find((r) => r.path.endsWith('/status')), {
      what: 'plain-text answer',
    });
    expect(answer.body.blocks).toBeUndefined();
    expect(String(answer.body.text)).toContain('No job `job_missing` exists in this docs project');
  });

  it('response_url answers like Slack: 400 for bad blocks, used_url after 5 uses, expired after 30 minutes', async () => {
    app = await startTestApp();
    const post = (id: string, body: unknown) =>
      fetch(app!.slack.responseUrl(id), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then(async (r) => `${r.status} ${await r.text()}`);
    const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });
    expect(await post('a', { text: 'x', blocks: [section('y'.repeat(3001))] })).toBe('400 invalid_blocks');
    for (let i = 0; i < 4; i++) expect(await post('a', { text: 'ok' })).toMatch(/^200/);
    expect(await post('a', { text: 'ok' })).toBe('404 used_url');
    const start = Date.now();
    app.slack.blockKit.now = () => start;
    expect(await post('b', { text: 'ok' })).toMatch(/^200/);
    app.slack.blockKit.now = () => start + 31 * 60_000;
    expect(await post('b', { text: 'ok' })).toBe('404 expired_url');
  });

  it('limit texts name the configured AGENT_JOBS_PER_HOUR and ANALYTICS_HOURLY_BUDGET, not 100', async () => {
    app = await startTestApp({ env: { AGENT_JOBS_PER_HOUR: '1', ANALYTICS_HOURLY_BUDGET: '3' } });
    await app.command({ text: 'First job' });
    await waitFor(() => app!.docs.jobs.size === 1, { what: 'first job' });
    await app.command({ text: 'Second job' });
    const card = await waitFor(
      () => app!.slack.messages.map((m) => JSON.stringify(m.blocks)).find((b) => b.includes('Not started')),
      { what: 'refused card' },
    );
    expect(card).toContain('hourly limit for agent jobs (1 job per hour)');
    expect(card).not.toContain('100');

    app.docs.defaultViews = [{ path: '/a', human: 1, ai: 1, total: 2 }];
    await app.command({ command: '/docs-views', text: '7d', response_url: app.slack.responseUrl('views-1') });
    await waitFor(() => app!.slack.responses.find((r) => r.path.endsWith('/views-1')), { what: 'report' });
    await app.command({
      command: '/docs-views',
      text: '30d',
      response_url: app.slack.responseUrl('views-2'),
    });
    const refused = await waitFor(() => app!.slack.responses.find((r) => r.path.endsWith('/views-2')), {
      what: 'refusal',
    });
    expect(String(refused.body.text)).toContain('analytics budget (3 requests per hour, shared');
  });

  it('a private (ephemeral) answer whose blocks Slack refuses is sent as plain text', async () => {
    app = await startTestApp();
    app.slack.inject('chat.postEphemeral', { kind: 'error', error: 'invalid_blocks' });
    await app.event(eventEnvelope(messageEvent({ type: 'app_mention', text: `<@${BOT_USER_ID}>` })));
    const calls = await waitFor(
      () =>
        app!.slack.callsOf('chat.postEphemeral').length === 2
          ? app!.slack.callsOf('chat.postEphemeral')
          : undefined,
      { what: 'plain-text ephemeral' },
    );
    expect(calls[1]!.args.blocks).toBeUndefined();
    expect(String(calls[1]!.args.text)).toContain('Tell me what to change in the docs');
  });
});
