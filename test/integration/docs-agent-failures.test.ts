import { afterEach, describe, expect, it } from 'vitest';
import { FAKE_READONLY_KEY } from '../support/fake-docs.js';
import { waitFor } from '../support/http.js';
import { BOT_TOKEN, startTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

/** The card's final text once the job could not be started. */
async function failedCard(t: TestApp): Promise<string> {
  return waitFor(
    () => {
      const card = t.slack.messages.find((m) => !m.thread_ts);
      const json = JSON.stringify(card?.blocks ?? []);
      return json.includes('Not started') ? json : undefined;
    },
    { what: 'card marked not started' },
  );
}

describe('/docs-agent failures users must understand', () => {
  it('a wrong key (401): an admin must check the key; nothing retried', async () => {
    app = await startTestApp({ env: { DOCS_API_KEY: 'svc_wrong_key_abcdefghijklmnopqrstuv' } });
    await app.command({ text: 'Add a FAQ' });
    const card = await failedCard(app);
    expect(card).not.toContain('401');
    expect(card).toContain('valid docs admin key');
    expect(app.docs.requestsTo('POST', /\/job$/)).toHaveLength(1);
    expect(app.docs.jobs.size).toBe(0);
  });

  it('a read-only key (403): write scope is named', async () => {
    app = await startTestApp({ env: { DOCS_API_KEY: FAKE_READONLY_KEY } });
    await app.command({ text: 'Add a FAQ' });
    expect(await failedCard(app)).toContain('write scope');
  });

  it('the hourly limit (429): says so and when to try again', async () => {
    app = await startTestApp();
    app.docs.jobsPerHour = 1;
    await app.command({ text: 'First job' });
    await waitFor(() => app!.docs.jobs.size === 1, { what: 'first job' });
    app.docs.inject({ method: 'POST', path: '/v2/' }, { kind: 'status', status: 429, retryAfter: '600' });
    await app.command({ text: 'Second job' });
    const card = await waitFor(
      () =>
        app!.slack.messages
          .filter((m) => !m.thread_ts)
          .map((m) => JSON.stringify(m.blocks))
          .find((b) => b.includes('Not started')),
      { what: 'second card failed' },
    );
    expect(card).toContain('hourly limit');
    expect(card).toContain('<!date^');
    expect(card).toContain('about 10 min');
  });

  it('a 400 shows the API’s message', async () => {
    app = await startTestApp();
    app.docs.inject(
      { method: 'POST' },
      {
        kind: 'status',
        status: 400,
        body: JSON.stringify({ error: 'Prompt mentions an unknown page <!channel>' }),
      },
    );
    await app.command({ text: 'Fix the page' });
    const card = await failedCard(app);
    expect(card).toContain('Prompt mentions an unknown page');
    expect(card).not.toContain('<!channel>');
  });

  it('the API timing out: said plainly, card not left "starting", no retry of the create', async () => {
    app = await startTestApp({ env: { DOCS_API_TIMEOUT_MS: '200' } });
    app.docs.inject({ method: 'POST' }, { kind: 'delay', ms: 1500 });
    await app.command({ text: 'Slow platform' });
    const card = await failedCard(app);
    expect(card).toContain('did not answer in time');
    expect(card).not.toContain('Starting');
    expect(app.docs.requestsTo('POST', /\/job$/)).toHaveLength(1);
  });

  it('joins a public channel it is not in, then posts', async () => {
    app = await startTestApp();
    app.slack.notMemberOf.add('C0PUBLIC');
    await app.command({ text: 'Hello', channel_id: 'C0PUBLIC' });
    await waitFor(() => app!.docs.jobs.size === 1, { what: 'job created after join' });
    expect(app.slack.callsOf('conversations.join')).toHaveLength(1);
    expect(app.slack.messages.find((m) => m.channel === 'C0PUBLIC')).toBeDefined();
  });

  it('in a private channel it cannot join: asks to /invite it, starts nothing', async () => {
    app = await startTestApp();
    app.slack.notMemberOf.add('G0PRIVATE');
    await app.command({ text: 'Hello', channel_id: 'G0PRIVATE' });
    const response = await waitFor(() => app!.slack.responses[0], { what: 'ephemeral response' });
    expect(response.body.response_type).toBe('ephemeral');
    expect(String(response.body.text)).toContain('/invite @docs-agent');
    expect(app.docs.requests).toHaveLength(0);
  });

  it('users and channels outside the allowlists are refused before anything happens', async () => {
    app = await startTestApp({ env: { ALLOWED_USER_IDS: 'U0ALICE', ALLOWED_CHANNEL_IDS: 'C0DOCS' } });
    const byUser = await app.command({ text: 'x', user_id: 'U0MALLORY' });
    expect(JSON.parse(byUser.body).text).toContain('allowed users');
    const inChannel = await app.command({ text: 'x', channel_id: 'C0OTHER' });
    expect(JSON.parse(inChannel.body).text).toContain('allow this channel');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(app.docs.requests).toHaveLength(0);
    expect(app.slack.callsOf('chat.postMessage')).toHaveLength(0);
  });

  it('a refusal names the admins to ask (ADMIN_USER_IDS), never the setting; without admins, a workspace admin', async () => {
    app = await startTestApp({ env: { ALLOWED_USER_IDS: 'U0ALICE', ADMIN_USER_IDS: 'U0ADMIN1,U0ADMIN2' } });
    const named = String(JSON.parse((await app.command({ text: 'x', user_id: 'U0MALLORY' })).body).text);
    expect(named).toContain('Ask <@U0ADMIN1> or <@U0ADMIN2> to add you');
    expect(named).not.toMatch(/ADMIN_USER_IDS|ALLOWED_USER_IDS|whoever runs/);
    await app.stop();
    app = await startTestApp({ env: { ALLOWED_USER_IDS: 'U0ALICE' } });
    const unnamed = String(JSON.parse((await app.command({ text: 'x', user_id: 'U0MALLORY' })).body).text);
    expect(unnamed).toContain('Ask a workspace admin to add you');
  });

  it('refuses a prompt over 4,000 characters instead of truncating it', async () => {
    app = await startTestApp();
    const ack = await app.command({ text: 'a'.repeat(4001) });
    const body = JSON.parse(ack.body) as { response_type: string; text: string };
    expect(body.response_type).toBe('ephemeral');
    expect(body.text).toContain('4,001');
    expect(body.text).toContain('4,000');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(app.docs.requests).toHaveLength(0);
  });

  it('neutralises Slack markup: the card pings nobody and the agent gets readable text', async () => {
    app = await startTestApp();
    await app.command({
      text: 'Tell <!channel> and <@U0BOB|bob> about <https://example.com/x|the guide> &amp; more',
    });
    const job = await waitFor(() => (app!.docs.jobs.size === 1 ? app!.docs.onlyJob : undefined), {
      what: 'job',
    });
    expect(job.prompts[0]).toBe('Tell @channel and @bob about the guide (https://example.com/x) & more');
    const sent = JSON.stringify(
      app.slack.callsOf('chat.postMessage').map((c) => [c.args.text, c.args.blocks]),
    );
    expect(sent).not.toMatch(/<!channel>|<@U0BOB/);
  });

  it('a job that fails upstream gets one reply explaining what to do', async () => {
    app = await startTestApp();
    await app.command({ text: 'Risky change' });
    const job = await waitFor(() => (app!.docs.jobs.size === 1 ? app!.docs.onlyJob : undefined), {
      what: 'job',
    });
    app.docs.fail(job.id);
    const card = app.slack.messages.find((m) => !m.thread_ts)!;
    const reply = await waitFor(() => app!.slack.threadReplies(card.channel, card.ts)[0], {
      what: 'failure reply',
    });
    expect(JSON.stringify(reply.blocks)).toContain('stopped with an error');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(app.slack.threadReplies(card.channel, card.ts)).toHaveLength(1);
  });

  it('a job that completes without changes says no PR was opened', async () => {
    app = await startTestApp();
    await app.command({ text: 'Nothing to do' });
    const job = await waitFor(() => (app!.docs.jobs.size === 1 ? app!.docs.onlyJob : undefined), {
      what: 'job',
    });
    app.docs.complete(job.id, null);
    const card = app.slack.messages.find((m) => !m.thread_ts)!;
    const reply = await waitFor(() => app!.slack.threadReplies(card.channel, card.ts)[0], { what: 'reply' });
    expect(JSON.stringify(reply.blocks)).toContain('no pull request was opened');
  });

  it('a timed-out terminal post is not duplicated: the retry finds the first one', async () => {
    app = await startTestApp({ env: { SLACK_API_TIMEOUT_MS: '300' } });
    await app.command({ text: 'Timeouts' });
    const job = await waitFor(() => (app!.docs.jobs.size === 1 ? app!.docs.onlyJob : undefined), {
      what: 'job',
    });
    await waitFor(() => app!.slack.callsOf('chat.update').length > 0, { what: 'card tracked' });
    // Slack stores the reply but answers too late: the bot must not post it again.
    app.slack.inject('chat.postMessage', { kind: 'delay', ms: 600, thenSucceed: true });
    app.docs.complete(job.id);
    const card = app.slack.messages.find((m) => !m.thread_ts)!;
    await waitFor(() => app!.slack.threadReplies(card.channel, card.ts).length === 1, { what: 'reply' });
    await waitFor(() => app!.slack.callsOf('conversations.replies').length >= 2, {
      what: 'lookup after timeout',
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(app.slack.threadReplies(card.channel, card.ts)).toHaveLength(1);
  });

  it('the bot token reaches Slack only in the Authorization header; no secret in logs', async () => {
    app = await startTestApp();
    await app.command({ text: 'Secret check' });
    await waitFor(() => app!.docs.jobs.size === 1, { what: 'job' });
    expect(app.slack.calls.every((c) => c.authorization === `Bearer ${BOT_TOKEN}`)).toBe(true);
    expect(app.slack.everythingSent()).not.toContain(BOT_TOKEN);
    const logs = app.logs.join('\n');
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).not.toContain(BOT_TOKEN);
    expect(logs).not.toMatch(/svc_fake_test_key/);
  });
});

describe('Slack unreachable at start', () => {
  it('does not stay broken: once auth.test succeeds, commands work without a restart', async () => {
    const { FakeSlack } = await import('../support/fake-slack.js');
    const slack = await FakeSlack.start();
    // Every auth.test fails until the fault list runs out: at start-up and for the first command.
    slack.inject('auth.test', { kind: 'status', status: 503 }, 2);
    app = await startTestApp({ slack });
    const t = app;
    await t.command({ text: 'While Slack is flaky' });
    await waitFor(() => slack.callsOf('auth.test').length >= 2, { what: 'second auth.test' });
    await t.command({ text: 'After Slack is back' });
    const job = await waitFor(
      () => [...t.docs.jobs.values()].find((j) => j.prompts[0] === 'After Slack is back'),
      {
        what: 'job after recovery',
      },
    );
    expect(job.status).toBe('active');
    await t.stop();
    app = undefined;
    await slack.close();
  });
});
