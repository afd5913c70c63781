import { createClient } from '@redis/client';
import { describe, expect, it } from 'vitest';
import { appsOnRedis } from '../support/apps-on-redis.js';
import { ASSISTANT_DM, assistantMessage, assistantThreadStarted } from '../support/assistant-events.js';
import { waitFor } from '../support/http.js';
import { eventEnvelope, messageEvent, nextMessageTs } from '../support/slack-events.js';
import { messageActionPayload, viewSubmissionPayload } from '../support/slack-interactions.js';
import type { TestApp } from '../support/test-app.js';

/**
 * Issue 44: a credential in what a person writes starts nothing, reaches neither the docs platform nor a
 * card, is answered privately once, and is kept nowhere (Redis is read whole after each case).
 */
const lab = appsOnRedis();

const GITHUB_TOKEN = 'ghp_R3alLookingTok3n0123456789abcdefABCD';
const SLACK_TOKEN = 'xoxb-2468013579-1357924680-Zy9XwV8uT7sR6qP5oN4mLk3j';
const DOCS_KEY = 'svc_live_9fK2mQ7xR4tB8vN1cW6zH3jL5pD0sG';

/** Every value in the bot's Redis, as text: strings, hashes, lists, sets, sorted sets and streams. */
async function everythingStored(url: string): Promise<string> {
  const client = createClient({ url });
  await client.connect();
  try {
    const parts: string[] = [];
    for (const key of await client.keys('*')) {
      const type = await client.type(key);
      parts.push(key);
      if (type === 'string') parts.push(String(await client.get(key)));
      else if (type === 'hash') parts.push(JSON.stringify(await client.hGetAll(key)));
      else if (type === 'list') parts.push(JSON.stringify(await client.lRange(key, 0, -1)));
      else if (type === 'set') parts.push(JSON.stringify(await client.sMembers(key)));
      else if (type === 'zset') parts.push(JSON.stringify(await client.zRange(key, 0, -1)));
      else if (type === 'stream') parts.push(JSON.stringify(await client.xRange(key, '-', '+')));
    }
    return parts.join('\n');
  } finally {
    await client.quit();
  }
}

async function boot(): Promise<TestApp> {
  // One redis-server for the file: each case starts from an empty one.
  const client = createClient({ url: lab.redisUrl() });
  await client.connect();
  await client.flushAll();
  await client.quit();
  const t = await lab.start({ env: { REDIS_URL: lab.redisUrl() } });
  t.slack.users.set('U0ALICE', { name: 'alice', display_name: 'Alice' });
  return t;
}

/** Nothing started, sent, posted or kept, and the secret is in no log line. */
async function expectNothingKept(t: TestApp, secret: string): Promise<void> {
  expect(t.docs.requests.filter((r) => r.method === 'POST').map((r) => r.path)).toEqual([]);
  expect(t.docs.jobs.size).toBe(0);
  expect(t.slack.callsOf('chat.postMessage').map((c) => c.args.text)).toEqual([]);
  expect(JSON.stringify(t.slack.calls)).not.toContain(secret);
  expect(t.logs.join('\n')).not.toContain(secret);
  expect(await everythingStored(lab.redisUrl())).not.toContain(secret.slice(4));
}

async function ephemeralNotice(t: TestApp): Promise<string> {
  await t.slack.waitForCall('chat.postEphemeral');
  const notices = t.slack.callsOf('chat.postEphemeral');
  expect(notices).toHaveLength(1);
  return String(notices[0]!.args.text);
}

describe('a credential in text starts nothing (issue 44)', () => {
  it('/docs-agent setting github ghp_… is refused privately in the acknowledgement', async () => {
    const t = await boot();
    const ack = await t.command({ text: `setting github ${GITHUB_TOKEN}` });
    const body = JSON.parse(ack.body) as { response_type: string; text: string };
    expect(body.response_type).toBe('ephemeral');
    expect(body.text).toContain('GitHub token');
    expect(body.text).toContain('/docs-agent settings github');
    expect(body.text).not.toContain(GITHUB_TOKEN.slice(4));
    await expectNothingKept(t, GITHUB_TOKEN);
  });

  it('every command is checked before its listener: /docs-views with a cloud key reads nothing', async () => {
    const t = await boot();
    const ack = await t.command({ command: '/docs-views', text: `last week AKIAIOSFODNN7EXAMPLE` });
    const body = JSON.parse(ack.body) as { response_type: string; text: string };
    expect(body.response_type).toBe('ephemeral');
    expect(body.text).toContain('cloud access key');
    expect(t.docs.requests).toEqual([]);
    await expectNothingKept(t, 'AKIAIOSFODNN7EXAMPLE');
  });

  it('a mention holding a Slack bot token is answered only to its author', async () => {
    const t = await boot();
    await t.event(
      eventEnvelope(
        messageEvent({ type: 'app_mention', text: `<@U0DOCSBOT> use ${SLACK_TOKEN} to post the changelog` }),
      ),
    );
    const notice = await ephemeralNotice(t);
    expect(notice).toContain('Slack token');
    expect(notice).not.toContain(SLACK_TOKEN.slice(5));
    await expectNothingKept(t, SLACK_TOKEN);
  });

  it('a DM holding a Slack bot token is answered privately in the DM', async () => {
    const t = await boot();
    await t.event(eventEnvelope(messageEvent({ channel: 'D0ALICE', channel_type: 'im', text: SLACK_TOKEN })));
    const notice = await ephemeralNotice(t);
    expect(t.slack.callsOf('chat.postEphemeral')[0]!.args.channel).toBe('D0ALICE');
    expect(notice).toContain('Slack token');
    await expectNothingKept(t, SLACK_TOKEN);
  });

  it('an assistant message holding a GitHub token is answered only to its author, in the thread', async () => {
    const t = await boot();
    const threadTs = nextMessageTs();
    await t.event(eventEnvelope(assistantThreadStarted({ threadTs, contextChannel: 'C0DOCS' })));
    await t.event(eventEnvelope(assistantMessage({ threadTs, text: `connect github with ${GITHUB_TOKEN}` })));
    const notice = await ephemeralNotice(t);
    const call = t.slack.callsOf('chat.postEphemeral')[0]!;
    expect(call.args).toMatchObject({ channel: ASSISTANT_DM, user: 'U0ALICE', thread_ts: threadTs });
    expect(notice).toContain('GitHub token');
    expect([...t.slack.assistant.streams.values()]).toEqual([]);
    await expectNothingKept(t, GITHUB_TOKEN);
  });

  it('an assistant message holding a token in the report words (views …) is refused the same way, never echoed', async () => {
    const t = await boot();
    const threadTs = nextMessageTs();
    await t.event(eventEnvelope(assistantThreadStarted({ threadTs, contextChannel: 'C0DOCS' })));
    await t.event(eventEnvelope(assistantMessage({ threadTs, text: `views ${GITHUB_TOKEN}` })));
    const notice = await ephemeralNotice(t);
    expect(notice).toContain('GitHub token');
    expect(JSON.stringify(t.slack.messages)).not.toContain(GITHUB_TOKEN.slice(4));
    await expectNothingKept(t, GITHUB_TOKEN);
  });

  it('a follow-up holding a docs admin key is not sent to the running job', async () => {
    const t = await boot();
    await t.command({ text: 'Document the 429 response' });
    const job = await waitFor(() => [...t.docs.jobs.values()][0], { what: 'job created' });
    await waitFor(() => t.slack.callsOf('chat.update').some((c) => JSON.stringify(c.args).includes(job.id)), {
      what: 'card tracked',
    });
    const card = t.slack.messages.find((m) => !m.thread_ts && JSON.stringify(m.blocks).includes(job.id));
    await t.event(
      eventEnvelope(messageEvent({ thread_ts: String(card?.ts), text: `the key is ${DOCS_KEY}, use it` })),
    );
    const notice = await ephemeralNotice(t);
    expect(notice).toContain('docs admin key');
    expect(job.prompts).toHaveLength(1);
    expect(JSON.stringify(t.slack.calls)).not.toContain(DOCS_KEY);
    expect(t.logs.join('\n')).not.toContain(DOCS_KEY);
    expect(await everythingStored(lab.redisUrl())).not.toContain(DOCS_KEY.slice(4));
  });

  it('a docs admin key in the job modal keeps the form open with the reason on its field', async () => {
    const t = await boot();
    const rootTs = nextMessageTs();
    const triggerId = t.slack.surfaces.mintTriggerId('U0ALICE');
    await t.interaction(
      messageActionPayload({
        triggerId,
        responseUrl: t.slack.responseUrl(),
        message: { text: 'Please document the admin keys page', ts: rootTs },
      }),
    );
    const modal = await waitFor(() => [...t.slack.surfaces.modals.values()][0], { what: 'modal opened' });
    const answer = await t.interaction(
      viewSubmissionPayload({
        view: modal.view,
        values: {
          instruction: {
            instruction_input: { type: 'plain_text_input', value: `Use ${DOCS_KEY} for the examples` },
          },
        },
      }),
    );
    const body = JSON.parse(answer.body) as { response_action: string; errors: Record<string, string> };
    expect(body.response_action).toBe('errors');
    expect(Object.values(body.errors)).toHaveLength(1);
    expect(body.errors.instruction).toContain('docs admin key');
    expect(answer.body).not.toContain(DOCS_KEY.slice(4));
    await expectNothingKept(t, DOCS_KEY);
  });
});
