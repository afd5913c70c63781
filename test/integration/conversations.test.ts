import { afterEach, describe, expect, it } from 'vitest';
import { boot, botReplies, send, startJob, stopConversationApp } from '../support/conversation-helpers.js';
import { waitFor } from '../support/http.js';
import { BOT_USER_ID, messageEvent } from '../support/slack-events.js';

afterEach(stopConversationApp);

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

  it('chatter in a job thread (thanks, LGTM, emoji, a reply to someone else) reaches no follow-up', async () => {
    const t = await boot();
    const { job, card } = await startJob(t);
    const thread = { thread_ts: card.ts };
    const chatter = [
      messageEvent({ ...thread, user: 'U0BOB', text: 'thanks!' }),
      messageEvent({ ...thread, user: 'U0ALICE', text: 'LGTM 👍' }),
      messageEvent({ ...thread, user: 'U0BOB', text: ':tada:' }),
      messageEvent({ ...thread, user: 'U0ALICE', text: '<@U0CAROL> can you review this before it merges?' }),
    ];
    for (const event of chatter) await send(t, event);
    // The positive sign: each chatter message was handled, and handled as chatter.
    const handledAsChatter = (ts: unknown) =>
      t.logs.some(
        (line) =>
          line.includes('message event handled') &&
          line.includes(`"ts":"${ts}"`) &&
          line.includes('"why":"chatter"'),
      );
    await waitFor(() => chatter.every((event) => handledAsChatter(event.ts)), { what: 'chatter handled' });

    const instruction = await send(
      t,
      messageEvent({ ...thread, user: 'U0BOB', text: 'please also add an example' }),
    );
    await waitFor(() => job.prompts.length === 2, { what: 'the real follow-up' });
    expect(job.prompts[1]).toContain('please also add an example');
    expect(t.docs.requestsTo('POST', /\/message$/)).toHaveLength(1);
    // 👀 marks only what was taken as an instruction.
    const reaction = await t.slack.waitForCall('reactions.add');
    expect(reaction.args).toMatchObject({ timestamp: instruction.ts, name: 'eyes' });
    expect(t.slack.callsOf('reactions.add')).toHaveLength(1);

    // Mentioning the bot is always an instruction, even a thanks.
    await send(t, messageEvent({ ...thread, user: 'U0ALICE', text: `<@${BOT_USER_ID}> thanks, ship it` }));
    await waitFor(() => job.prompts.length === 3, { what: 'the mention follow-up' });
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
