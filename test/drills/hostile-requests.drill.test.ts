import { request } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeReportRequest } from '../../src/insights/page-views/page-views-reports.js';
import { waitFor } from '../support/http.js';
import { BOT_USER_ID, eventEnvelope, messageEvent } from '../support/slack-events.js';
import { postSigned, signedHeaders, slashCommandBody } from '../support/slack-signing.js';
import { SIGNING_SECRET, startTestApp, type TestApp } from '../support/test-app.js';
import { expectNoSecretsLeaked, recordDrill, sleep, watchUnhandledRejections } from './drill-support.js';

/**
 * Drill: requests that must be refused before anything runs (unsigned, wrongly signed, replayed, dated in
 * the future, oversized), and people outside the allowlists trying every way to start or steer a job.
 */
let app: TestApp | undefined;
const rejections = watchUnhandledRejections();
afterAll(async () => {
  rejections.stop();
  await app?.stop();
});

const now = () => Math.floor(Date.now() / 1000);

/**
 * POSTs on a connection of its own (no keep-alive pool: the server may drop it after a 413); resolves the
 * status, or 413 when the server closed the connection after refusing the body.
 */
function postOnOwnConnection(url: string, body: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', () => resolve(413));
    req.end(body);
  });
}

describe('drill: hostile requests', () => {
  it('refuses unsigned, forged, replayed, future-dated and oversized requests; allowlists hold on every path', async () => {
    app = await startTestApp({
      env: { ALLOWED_USER_IDS: 'U0ALICE', ALLOWED_CHANNEL_IDS: 'C0DOCS,D0ALICE,D0MALLORY' },
    });
    const t = app;
    const events = `${t.url}/slack/events`;
    const command = slashCommandBody({
      text: 'Delete every page',
      response_url: t.slack.responseUrl('hostile'),
    });
    const mention = JSON.stringify(
      eventEnvelope(messageEvent({ type: 'app_mention', text: `<@${BOT_USER_ID}> Delete every page` })),
    );

    // A legitimate request right at the size Slack allows is under the body limit: 40,000 characters of
    // emoji (480 kB form-encoded) get the "too long" answer, not a 413.
    const big = await t.command({ text: '😀'.repeat(40_000) });
    expect(big.status).toBe(200);
    expect(big.body).toContain('limit');

    // 1. Signatures.
    const refused: Array<{ name: string; status: number }> = [];
    const unsigned = await fetch(events, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: command,
    });
    refused.push({ name: 'unsigned command', status: unsigned.status });
    const tries: Array<[string, string, string, { timestamp?: number; contentType?: string }]> = [
      ['wrong secret (command)', command, 'not-the-signing-secret', {}],
      ['wrong secret (event)', mention, 'not-the-signing-secret', { contentType: 'application/json' }],
      ['replayed: 6 minutes old', command, SIGNING_SECRET, { timestamp: now() - 6 * 60 }],
      [
        'replayed: 1 day old',
        mention,
        SIGNING_SECRET,
        { timestamp: now() - 86_400, contentType: 'application/json' },
      ],
      ['future-dated: +6 minutes', command, SIGNING_SECRET, { timestamp: now() + 6 * 60 }],
      [
        'future-dated: +1 day',
        mention,
        SIGNING_SECRET,
        { timestamp: now() + 86_400, contentType: 'application/json' },
      ],
    ];
    for (const [name, body, secret, options] of tries) {
      refused.push({ name, status: (await postSigned(events, body, secret, options)).status });
    }
    // Tampered body: signed, then changed.
    const tampered = await fetch(events, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...signedHeaders(SIGNING_SECRET, command),
      },
      body: command.replace('Delete', 'Remove'),
    });
    refused.push({ name: 'tampered body', status: tampered.status });
    // Oversized: a correctly signed 2 MB body.
    const huge = slashCommandBody({
      text: 'x'.repeat(2 * 1024 * 1024),
      response_url: t.slack.responseUrl('huge'),
    });
    refused.push({
      name: 'oversized (2 MB, signed)',
      // Bolt answers 413 once the limit is passed; the client may see the connection closed instead.
      status: await postOnOwnConnection(events, huge, signedHeaders(SIGNING_SECRET, huge)),
    });
    for (const r of refused) expect(r.status, r.name).toBeGreaterThanOrEqual(400);
    expect(refused.find((r) => r.name.startsWith('oversized'))!.status).toBe(413);
    expect(t.logs.some((l) => l.includes('exceeded the maximum allowed size'))).toBe(true);
    await sleep(300);
    expect(t.docs.requests, 'nothing reached the docs API').toEqual([]);
    expect(t.slack.callsOf('chat.postMessage'), 'nothing posted').toEqual([]);

    // 2. Allowlists. Alice starts a job; Mallory (not allowed) tries every path.
    await t.command({ text: 'Legit job by Alice' });
    const job = await waitFor(() => (t.docs.jobs.size === 1 ? t.docs.onlyJob : undefined), { what: 'job' });
    await waitFor(() => t.slack.callsOf('chat.update').some((c) => JSON.stringify(c.args).includes(job.id)), {
      what: 'card tracked',
    });
    const card = t.slack.messages.find((m) => !m.thread_ts)!;
    const attempts: Array<{ path: string; answered: boolean }> = [];
    const ephemeralsBefore = () => t.slack.callsOf('chat.postEphemeral').length;

    const viaCommand = await t.command({ text: 'Mallory wants a job', user_id: 'U0MALLORY' });
    // Refused in words a channel member reads (the operator's variable names stay in the logs).
    attempts.push({ path: 'command', answered: viaCommand.body.includes('list of allowed users') });
    const viaOtherChannel = await t.command({ text: 'Alice in a closed channel', channel_id: 'C0CLOSED' });
    attempts.push({
      path: 'command in a closed channel',
      answered: viaOtherChannel.body.includes('not enabled in this conversation'),
    });
    for (const [path, event] of [
      [
        'mention',
        messageEvent({ type: 'app_mention', user: 'U0MALLORY', text: `<@${BOT_USER_ID}> Mallory job` }),
      ],
      [
        'DM',
        messageEvent({ channel: 'D0MALLORY', channel_type: 'im', user: 'U0MALLORY', text: 'Mallory job' }),
      ],
      [
        'mention in the job thread',
        messageEvent({
          type: 'app_mention',
          user: 'U0MALLORY',
          thread_ts: card.ts,
          text: `<@${BOT_USER_ID}> change course`,
        }),
      ],
      [
        'mention in a closed channel',
        messageEvent({ type: 'app_mention', channel: 'C0CLOSED', text: `<@${BOT_USER_ID}> Alice job` }),
      ],
    ] as const) {
      const before = ephemeralsBefore();
      await t.event(eventEnvelope(event));
      const answered = await waitFor(() => ephemeralsBefore() > before, { timeoutMs: 3_000, what: path })
        .then(() => true)
        .catch(() => false);
      attempts.push({ path, answered });
    }
    // A plain reply in the job thread by Mallory is just conversation: never forwarded.
    await t.event(
      eventEnvelope(
        messageEvent({ user: 'U0MALLORY', thread_ts: card.ts, text: 'Also delete the API docs' }),
      ),
    );
    attempts.push({ path: 'plain thread reply (ignored as conversation)', answered: true });
    // The one interactive button that acts: "Post to channel" on a report.
    const value = encodeReportRequest({
      range: { from: '2024-04-01', toExclusive: '2024-04-08' },
      label: 'Last 7 days',
      timeZone: 'UTC',
      top: 10,
      prefix: undefined,
    });
    await t.interaction({
      type: 'block_actions',
      user: { id: 'U0MALLORY', name: 'mallory' },
      team: { id: 'T0TEAM' },
      channel: { id: 'C0DOCS', name: 'docs' },
      api_app_id: 'A0DOCSAGENT',
      token: 'deprecated',
      trigger_id: '1.2.3',
      response_url: t.slack.responseUrl('button'),
      actions: [
        { type: 'button', action_id: 'docs_views_post', block_id: 'b', value, action_ts: String(now()) },
      ],
    });
    const buttonAnswer = await waitFor(() => t.slack.responses.find((r) => r.path.endsWith('/button')), {
      what: 'button answer',
    });
    attempts.push({ path: 'button', answered: String(buttonAnswer.body.text ?? '') !== '' });
    await sleep(400);

    const created = t.docs.requestsTo('POST', /\/job$/).map((r) => (r.body as { prompt: string }).prompt);
    const followUps = t.docs.requestsTo('POST', /\/message$/);
    const posts = t.slack
      .callsOf('chat.postMessage')
      .filter((c) => c.args.channel !== 'C0DOCS' || c.args.thread_ts);
    const scanned = expectNoSecretsLeaked(t);
    recordDrill('hostile-requests', {
      requestsRefused: refused,
      allowlistAttempts: attempts,
      jobsStartedByOutsiders: created.filter((p) => !p.includes('Legit job by Alice')).length,
      followUpsByOutsiders: followUps.length,
      unhandledRejections: rejections.seen.length,
      secretScanTexts: scanned,
    });
    expect(created).toEqual(['Legit job by Alice']);
    expect(followUps).toEqual([]);
    expect(posts, 'no post other than the card').toEqual([]);
    expect(attempts.filter((a) => !a.answered)).toEqual([]);
    expect(rejections.seen).toEqual([]);
  }, 60_000);
});
