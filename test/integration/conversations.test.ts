import { afterEach, describe, expect, it } from 'vitest';
import type { StoredMessage } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { BOT_USER_ID, eventEnvelope, messageEvent, nextMessageTs } from '../support/slack-events.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

async function boot(env: Record<string, string> = {}): Promise<TestApp> {
  app = await startTestApp({ env });
  app.slack.users.set('U0ALICE', { name: 'alice', display_name: 'Alice' });
  app.slack.users.set('U0BOB', { name: 'bob', display_name: 'Bob' });
  app.slack.users.set('U0CAROL', { name: 'carol', real_name: 'Carol Jones', display_name: '' });
  return app;
}

/** Starts a job with /docs-agent and waits until it is tracked; resolves the job and its card. */
async function startJob(t: TestApp, text = 'Document the 429 response') {
  const before = t.docs.jobs.size;
  await t.command({ text });
  const job = await waitFor(
    () => (t.docs.jobs.size > before ? [...t.docs.jobs.values()].at(-1) : undefined),
    {
      what: 'job created',
    },
  );
  await waitFor(() => t.slack.callsOf('chat.update').some((c) => JSON.stringify(c.args).includes(job.id)), {
    what: 'card tracked',
  });
  const card = t.slack.messages.find((m) => !m.thread_ts && JSON.stringify(m.blocks).includes(job.id));
  if (!card) throw new Error('no card');
  return { job, card };
}

function botReplies(t: TestApp, channel: string, threadTs: string): StoredMessage[] {
  return t.slack.threadReplies(channel, threadTs).filter((m) => m.bot_id);
}

async function send(t: TestApp, event: Record<string, unknown>) {
  const response = await t.event(eventEnvelope(event));
  expect(response.status).toBe(200);
  return event;
}

describe('follow-ups in a job thread', () => {
  it('forwards a reply as plain text with its author, reacts, and tracks the job again', async () => {
    const t = await boot();
    const { job, card } = await startJob(t);
    const reply = await send(
      t,
      messageEvent({
        user: 'U0CAROL',
        thread_ts: card.ts,
        text: 'Also ask <@U0BOB> and see <https://example.com/spec|the spec> &amp; <https://example.com/raw> &lt;3',
      }),
    );

    await waitFor(() => job.prompts.length === 2, { what: 'follow-up sent' });
    expect(job.prompts[1]).toBe(
      "Follow-up from @Carol Jones in the job's Slack thread:\n\nAlso ask @Bob and see the spec (https://example.com/spec) & https://example.com/raw <3",
    );
    const reaction = await t.slack.waitForCall('reactions.add');
    expect(reaction.args).toMatchObject({ channel: 'C0DOCS', timestamp: reply.ts, name: 'eyes' });
    // users.info is cached: Bob and Carol looked up once each even across messages.
    await send(t, messageEvent({ user: 'U0CAROL', thread_ts: card.ts, text: 'and <@U0BOB> again' }));
    await waitFor(() => job.prompts.length === 3, { what: 'second follow-up' });
    expect(job.prompts[2]).toContain('and @Bob again');
    const lookups = t.slack.callsOf('users.info').map((c) => c.args.user);
    expect(lookups.filter((u) => u === 'U0BOB')).toHaveLength(1);
    expect(lookups.filter((u) => u === 'U0CAROL')).toHaveLength(1);
  });

  it("ignores bots (ours and others'), edits, deletions, broadcasts, asides and ordinary threads", async () => {
    const t = await boot();
    const { job, card } = await startJob(t);
    const thread = { thread_ts: card.ts };
    const ignored = [
      messageEvent({ ...thread, user: BOT_USER_ID, bot_id: 'B0DOCSBOT', text: 'our own message' }),
      messageEvent({ ...thread, user: 'U0OTHERBOT', bot_id: 'B0OTHER', text: 'another bot' }),
      messageEvent({
        ...thread,
        subtype: 'bot_message',
        bot_id: 'B0OTHER',
        text: 'legacy bot',
        user: undefined,
      }),
      messageEvent({
        ...thread,
        subtype: 'message_changed',
        text: '',
        message: { text: 'edited', user: 'U0BOB', ts: card.ts },
      }),
      messageEvent({ ...thread, subtype: 'message_deleted', text: '' }),
      messageEvent({ ...thread, subtype: 'thread_broadcast', text: 'also sent to channel' }),
      messageEvent({ ...thread, subtype: 'channel_join', text: '<@U0BOB> has joined' }),
      messageEvent({ ...thread, text: '(aside) the agent is slow today' }),
      messageEvent({ ...thread, text: '(ASIDE) shouting' }),
      messageEvent({ ...thread, text: '  // just between us' }),
      messageEvent({ thread_ts: '1111111111.000100', text: 'a reply in some other thread' }),
      messageEvent({ text: 'a top-level message in the channel' }),
    ];
    for (const event of ignored) await send(t, event);
    // A real follow-up last: once it has arrived, the deliveries before it have been handled.
    await send(t, messageEvent({ ...thread, user: 'U0BOB', text: 'Please add an example' }));
    await waitFor(() => job.prompts.length === 2, { what: 'the one real follow-up' });
    await new Promise((resolve) => setTimeout(resolve, 150));

    expect(job.prompts).toHaveLength(2);
    expect(job.prompts[1]).toContain('Please add an example');
    expect(t.docs.jobs.size).toBe(1);
    expect(t.slack.callsOf('reactions.add')).toHaveLength(1);
  });

  it('answers in the thread when the docs API refuses a follow-up (404, 429, 400)', async () => {
    const t = await boot();
    const { job, card } = await startJob(t);

    t.docs.inject({ method: 'POST', path: /\/message$/ }, { kind: 'status', status: 429 });
    await send(t, messageEvent({ thread_ts: card.ts, text: 'one more thing' }));
    const limited = await waitFor(() => botReplies(t, card.channel, card.ts)[0], { what: '429 answer' });
    expect(JSON.stringify(limited.blocks)).toContain('hourly limit');

    t.docs.inject(
      { method: 'POST', path: /\/message$/ },
      { kind: 'status', status: 400, body: JSON.stringify({ error: 'prompt mentions an unknown page' }) },
    );
    await send(t, messageEvent({ thread_ts: card.ts, text: 'fix the page' }));
    const invalid = await waitFor(() => botReplies(t, card.channel, card.ts)[1], { what: '400 answer' });
    expect(JSON.stringify(invalid.blocks)).toContain('prompt mentions an unknown page');

    t.docs.remove(job.id);
    await send(t, messageEvent({ thread_ts: card.ts, text: 'are you there?' }));
    // The poller may also notice the job is gone and say so; the refusal is its own reply.
    const gone = await waitFor(
      () =>
        botReplies(t, card.channel, card.ts).find((m) =>
          JSON.stringify(m.blocks).includes('your reply was not passed on'),
        ),
      { what: '404 answer' },
    );
    expect(gone.text).toBe('Your reply did not reach the docs agent');
    expect(t.slack.callsOf('reactions.add')).toHaveLength(0);
  });

  it('a follow-up to a finished job gets its own terminal reply when the job finishes again', async () => {
    const t = await boot();
    const { job, card } = await startJob(t);
    t.docs.complete(job.id, 'https://github.com/acme/docs/pull/42');
    await waitFor(() => botReplies(t, card.channel, card.ts).length === 1, { what: 'first terminal reply' });

    // Right after the follow-up the platform still reports the previous run as completed a few times.
    const stale = { ...structuredClone(job), prompts: undefined };
    t.docs.inject(
      { method: 'GET', path: `/v2/agent/proj_acme_docs/job/${job.id}` },
      { kind: 'status', status: 200, body: JSON.stringify(stale) },
      3,
    );
    await send(t, messageEvent({ user: 'U0BOB', thread_ts: card.ts, text: 'Add a curl example too' }));
    await waitFor(() => job.prompts.length === 2, { what: 'follow-up sent' });
    await waitFor(() => JSON.stringify(t.slack.message(card.channel, card.ts)?.blocks).includes('Working'), {
      what: 'card shows the job working again',
    });
    const polls = () => t.docs.requestsTo('GET', new RegExp(`/job/${job.id}$`)).length;
    const afterFollowUp = polls();
    await waitFor(() => polls() >= afterFollowUp + 5, { what: 'stale and fresh polls' });
    // The stale "completed" did not end the new generation.
    expect(botReplies(t, card.channel, card.ts)).toHaveLength(1);

    t.docs.complete(job.id, 'https://github.com/acme/docs/pull/43');
    const second = await waitFor(() => botReplies(t, card.channel, card.ts)[1], {
      what: 'second terminal reply',
    });
    expect(second.text).toContain('https://github.com/acme/docs/pull/43');
    await waitFor(() => JSON.stringify(t.slack.message(card.channel, card.ts)?.blocks).includes('pull/43'), {
      what: 'card shows the new PR',
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(botReplies(t, card.channel, card.ts)).toHaveLength(2);
  });

  it('FOLLOW_UPS_FROM=requester forwards only the requester; others can still talk in the thread', async () => {
    const t = await boot({ FOLLOW_UPS_FROM: 'requester' });
    const { job, card } = await startJob(t);
    expect(JSON.stringify(card.blocks)).toContain('Replies from <@U0ALICE> in this thread go to the agent');
    await send(t, messageEvent({ user: 'U0BOB', thread_ts: card.ts, text: 'I think it should say more' }));
    // An explicit mention from someone else is answered privately.
    await send(
      t,
      messageEvent({
        type: 'app_mention',
        user: 'U0BOB',
        thread_ts: card.ts,
        text: `<@${BOT_USER_ID}> do X`,
      }),
    );
    const ephemeral = await t.slack.waitForCall('chat.postEphemeral');
    expect(ephemeral.args).toMatchObject({ channel: 'C0DOCS', user: 'U0BOB' });
    expect(String(ephemeral.args.text)).toContain('Only <@U0ALICE>');
    await send(t, messageEvent({ user: 'U0ALICE', thread_ts: card.ts, text: 'Yes, say more' }));
    await waitFor(() => job.prompts.length === 2, { what: 'requester follow-up' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(job.prompts).toHaveLength(2);
    expect(job.prompts[1]).toContain('@Alice');
  });

  it('the user allowlist applies to follow-ups', async () => {
    const t = await boot({ ALLOWED_USER_IDS: 'U0ALICE' });
    const { job, card } = await startJob(t);
    await send(t, messageEvent({ user: 'U0BOB', thread_ts: card.ts, text: 'change everything' }));
    await send(t, messageEvent({ user: 'U0ALICE', thread_ts: card.ts, text: 'only this' }));
    await waitFor(() => job.prompts.length === 2, { what: 'allowed follow-up' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(job.prompts).toHaveLength(2);
    expect(job.prompts[1]).toContain('only this');
  });
});

describe('mentions and DMs start jobs', () => {
  it('a mention in a channel starts a job in its thread, without the bot mention in the prompt', async () => {
    const t = await boot();
    const mention = await send(
      t,
      messageEvent({ type: 'app_mention', text: `<@${BOT_USER_ID}> Fix the broken links on the quickstart` }),
    );
    const job = await waitFor(() => (t.docs.jobs.size === 1 ? t.docs.onlyJob : undefined), { what: 'job' });
    expect(job.prompts).toEqual(['Fix the broken links on the quickstart']);
    const card = await waitFor(() => t.slack.messages.find((m) => m.thread_ts === mention.ts), {
      what: 'card in the mention thread',
    });
    expect(card.channel).toBe('C0DOCS');
    // Replies in that thread are follow-ups.
    await send(t, messageEvent({ user: 'U0BOB', thread_ts: String(mention.ts), text: 'and the FAQ' }));
    await waitFor(() => job.prompts.length === 2, { what: 'follow-up' });
    const polls = () => t.docs.requestsTo('GET', new RegExp(`/job/${job.id}$`)).length;
    const afterFollowUp = polls();
    await waitFor(() => polls() >= afterFollowUp + 2, { what: 'the job seen running again' });
    t.docs.complete(job.id, 'https://github.com/acme/docs/pull/7');
    const reply = await waitFor(
      () => botReplies(t, 'C0DOCS', String(mention.ts)).find((m) => m.text.includes('pull/7')),
      { what: 'terminal reply in the mention thread' },
    );
    expect(reply.thread_ts).toBe(mention.ts);
  });

  it('a mention inside an ordinary thread carries the earlier messages as labelled context', async () => {
    const t = await boot();
    const root = nextMessageTs();
    const earlier: StoredMessage[] = [
      { channel: 'C0DOCS', ts: root, text: 'The quickstart says tokens last 24h', user: 'U0ALICE' },
      {
        channel: 'C0DOCS',
        ts: nextMessageTs(),
        thread_ts: root,
        text: '<@U0ALICE> it is 1h now, see <https://example.com/changelog|the changelog>',
        user: 'U0BOB',
      },
    ];
    t.slack.messages.push(...earlier);
    await send(
      t,
      messageEvent({
        type: 'app_mention',
        user: 'U0CAROL',
        thread_ts: root,
        text: `<@${BOT_USER_ID}> please fix the token lifetime`,
      }),
    );
    const job = await waitFor(() => (t.docs.jobs.size === 1 ? t.docs.onlyJob : undefined), { what: 'job' });
    const prompt = job.prompts[0]!;
    expect(prompt.startsWith('please fix the token lifetime\n\n')).toBe(true);
    expect(prompt).toContain('not instructions');
    expect(prompt).toContain('@Alice wrote:\n> The quickstart says tokens last 24h');
    expect(prompt).toContain(
      '@Bob wrote:\n> @Alice it is 1h now, see the changelog (https://example.com/changelog)',
    );
    // The card shows only the instruction, and sits in the existing thread.
    const card = await waitFor(() => t.slack.messages.find((m) => m.bot_id && m.thread_ts === root), {
      what: 'card in thread',
    });
    expect(JSON.stringify(card.blocks)).not.toContain('24h');
  });

  it('a DM starts a job in the DM, and replies in that DM thread are follow-ups', async () => {
    const t = await boot();
    const dm = await send(
      t,
      messageEvent({
        channel: 'D0ALICE',
        channel_type: 'im',
        text: 'Add a Python example to the auth guide',
      }),
    );
    const job = await waitFor(() => (t.docs.jobs.size === 1 ? t.docs.onlyJob : undefined), { what: 'job' });
    expect(job.prompts).toEqual(['Add a Python example to the auth guide']);
    await waitFor(() => t.slack.messages.find((m) => m.channel === 'D0ALICE' && m.thread_ts === dm.ts), {
      what: 'card in the DM thread',
    });
    await send(
      t,
      messageEvent({ channel: 'D0ALICE', channel_type: 'im', thread_ts: String(dm.ts), text: 'use httpx' }),
    );
    await waitFor(() => job.prompts.length === 2, { what: 'DM follow-up' });
    expect(t.docs.jobs.size).toBe(1);
  });

  it('a mention by someone not allowed is answered privately and starts nothing', async () => {
    const t = await boot({ ALLOWED_USER_IDS: 'U0ALICE' });
    await send(t, messageEvent({ type: 'app_mention', user: 'U0BOB', text: `<@${BOT_USER_ID}> do it` }));
    const ephemeral = await t.slack.waitForCall('chat.postEphemeral');
    expect(String(ephemeral.args.text)).toContain('ALLOWED_USER_IDS');
    expect(t.docs.jobs.size).toBe(0);
  });
});

describe('/docs-agent list and status', () => {
  it('lists the watched jobs of this channel with a link to each thread', async () => {
    const t = await boot();
    const { job, card } = await startJob(t);
    const ack = await t.command({ text: 'list' });
    const body = JSON.parse(ack.body) as { response_type: string; blocks: unknown[] };
    expect(body.response_type).toBe('ephemeral');
    const text = JSON.stringify(body.blocks);
    expect(text).toContain(job.id);
    expect(text).toContain('Working');
    expect(text).toContain(`https://slack.com/archives/C0DOCS/p${card.ts.replace('.', '')}`);

    const other = await t.command({ text: 'list', channel_id: 'C0OTHER' });
    expect(JSON.stringify(JSON.parse(other.body))).toContain('No docs agent jobs');
  });

  it('shows a job fetched fresh, and says clearly when the id is unknown', async () => {
    const t = await boot();
    const { job } = await startJob(t);
    t.docs.complete(job.id, 'https://github.com/acme/docs/pull/9');
    const gets = t.docs.requestsTo('GET', new RegExp(`/job/${job.id}$`)).length;
    await t.command({ text: `status ${job.id}` });
    const answer = await waitFor(
      () => t.slack.responses.find((r) => JSON.stringify(r.body).includes('pull/9')),
      {
        what: 'status answer',
      },
    );
    expect(answer.body.response_type).toBe('ephemeral');
    expect(JSON.stringify(answer.body)).toContain('Done: pull request opened');
    expect(t.docs.requestsTo('GET', new RegExp(`/job/${job.id}$`)).length).toBeGreaterThan(gets);

    await t.command({ text: 'status job_9999' });
    const unknown = await waitFor(
      () => t.slack.responses.find((r) => JSON.stringify(r.body).includes('job_9999')),
      { what: 'unknown id answer' },
    );
    expect(JSON.stringify(unknown.body)).toContain('No job');
  });
});
