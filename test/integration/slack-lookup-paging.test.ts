import { webApi } from '@slack/bolt';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { Deliveries } from '../../src/delivery/deliveries.js';
import { SlackDeliverySender } from '../../src/slack/delivery-sender.js';
import { findPostedCopies, type ReadPage } from '../../src/slack/message-lookup.js';
import { MESSAGE_EVENT_TYPE, SlackGateway } from '../../src/slack/slack-gateway.js';
import { TokenRejections } from '../../src/slack/token-rejections.js';
import { MemoryDeliveryStore } from '../../src/state/memory/memory-delivery-store.js';
import { FakeSlack } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';

/*
 * Issue 26 item 7, the look-up's blind spots, against the fake Slack (which pages conversations.history
 * and conversations.replies with cursors as Slack does): a post that landed is found however many
 * messages share its window, and a refused token during a token change does not abandon what is owed.
 */

const silent = createLogger({ level: 'silent', secrets: [] });
let slack: FakeSlack | undefined;
let gateway: SlackGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  await slack?.close();
  gateway = undefined;
});

async function setUp(timeoutMs = 2_000) {
  slack = await FakeSlack.start();
  const client = new webApi.WebClient('xoxb-test', {
    slackApiUrl: slack.apiUrl,
    timeout: timeoutMs,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
  });
  gateway = new SlackGateway(client, { logger: silent, retryBaseMs: 10 });
  return { slack, gateway };
}

/** People talking: `count` messages stored in a channel (or a thread) as Slack would have them. */
function chatter(fake: FakeSlack, channel: string, count: number, threadTs?: string): void {
  for (let i = 0; i < count; i++)
    fake.messages.push({
      channel,
      ts: fake.nextTs(),
      text: `chatter ${i}`,
      user: 'U0ALICE',
      ...(threadTs ? { thread_ts: threadTs } : {}),
    });
}

const copiesOf = (fake: FakeSlack, key: string) =>
  fake.messages.filter((m) => m.metadata?.event_payload?.key === key);

describe('look-up by metadata key pages through history', () => {
  it('finds a top-level post with 250 newer messages in the channel (history is newest first)', async () => {
    const { slack, gateway } = await setUp();
    const since = Date.now();
    const ts = await gateway.post({
      channel: 'C0BUSY',
      message: { text: 'card', blocks: [] },
      dedupeKey: 'card:C0BUSY:1',
    });
    chatter(slack, 'C0BUSY', 250);

    expect(await gateway.findPosted('C0BUSY', null, 'card:C0BUSY:1', since)).toBe(ts);
    const reads = slack.callsOf('conversations.history');
    expect(reads.length).toBeGreaterThan(1);
    // Each page after the first continues from the cursor Slack handed out.
    expect(
      reads.slice(1).every((call) => typeof call.args.cursor === 'string' && call.args.cursor !== ''),
    ).toBe(true);
  });

  it('an outbox reply that landed after 250 replies in a busy thread is found, not posted again', async () => {
    const { slack, gateway } = await setUp(1_000);
    const root =
      slack.messages[
        slack.messages.push({ channel: 'C0THREAD', ts: slack.nextTs(), text: 'card', user: 'U0DOCSBOT' }) - 1
      ]!;
    const deliveries = new Deliveries({
      store: new MemoryDeliveryStore(),
      sender: new SlackDeliverySender(gateway, 300),
      logger: silent,
      settleMs: 3_500,
      retryBaseMs: 20,
    });
    const key = 'terminal:job_1:1';
    chatter(slack, 'C0THREAD', 250, root.ts);
    // The reply is stored at once but answered after the client's timeout: it landed, the outbox cannot know.
    slack.held.add('chat.postMessage', (args) => args.thread_ts === root.ts, { kind: 'late', ms: 2_500 });
    await deliveries.deliver({
      key,
      target: { kind: 'post', channel: 'C0THREAD', threadTs: root.ts },
      payload: { text: 'Pull request opened' },
      priority: 'reply',
    });

    await waitFor(() => slack.callsOf('conversations.replies').length >= 2, {
      what: 'the look-up',
      timeoutMs: 25_000,
    });
    await waitFor(async () => (await deliveries.attempt(key)).status === 'posted', {
      what: 'the reply recorded as posted',
      timeoutMs: 25_000,
    });
    expect(copiesOf(slack, key)).toHaveLength(1);
    expect(slack.callsOf('chat.postMessage').filter((c) => c.args.thread_ts === root.ts)).toHaveLength(1);
  }, 60_000);

  it('stops at its page bound and says so', async () => {
    let reads = 0;
    const endless: ReadPage = async () => {
      reads += 1;
      return { messages: [], has_more: true, response_metadata: { next_cursor: `page-${reads}` } };
    };
    const truncated: number[] = [];
    const copies = await findPostedCopies(
      endless,
      { channel: 'C0LONG', threadTs: null, key: 'k', sinceMs: Date.now(), eventType: MESSAGE_EVENT_TYPE },
      { maxPages: 5, onTruncated: (pages) => truncated.push(pages) },
    );
    expect(copies).toEqual([]);
    expect(reads).toBe(5);
    expect(truncated).toEqual([5]);
  });
});

describe('a refused token during a token change', () => {
  it('keeps what is owed (not sent, retried) and says so once; it is posted once Slack accepts the token', async () => {
    const { slack, gateway } = await setUp();
    const lines: string[] = [];
    const logger = createLogger({
      level: 'info',
      secrets: [],
      destination: { write: (l: string) => lines.push(l) },
    });
    const deliveries = new Deliveries({
      store: new MemoryDeliveryStore(),
      sender: new SlackDeliverySender(gateway, 2_000, new TokenRejections({ logger, retryAfterMs: 50 })),
      logger: silent,
      retryBaseMs: 20,
      retryMaxMs: 100,
    });
    slack.inject('chat.postMessage', { kind: 'error', error: 'invalid_auth' }, 3);
    const delivery = {
      key: 'notice:job_2:1',
      target: { kind: 'post' as const, channel: 'C0ROTATE', threadTs: null },
      payload: { text: 'The agent is still working' },
      priority: 'reply' as const,
    };
    expect(await deliveries.deliver(delivery)).toEqual({ status: 'pending' });
    // The reconciler (every replica runs one) retries what is owed once it is due.
    const posted = async () => {
      await deliveries.reconcile();
      return copiesOf(slack, delivery.key).length === 1;
    };
    await waitFor(posted, {
      what: 'the notice once the token works',
      timeoutMs: 10_000,
    });
    expect(slack.callsOf('chat.postMessage').length).toBe(4);
    const told = lines.filter((l) => l.includes('Slack refuses the bot token'));
    expect(told).toHaveLength(1);
    // Said once Slack's answer is back (the copy is stored a moment before the answer arrives).
    await waitFor(() => lines.some((l) => l.includes('Slack accepts the bot token again')), {
      what: 'the token said to work again',
    });
  });

  it('a token still refused after the window: messages are abandoned from then on', () => {
    let now = 0;
    const tokens = new TokenRejections({ logger: silent, windowMs: 60_000, now: () => now });
    expect(tokens.failureOf('token_revoked')?.kind).toBe('not_sent');
    now = 59_000;
    expect(tokens.failureOf('invalid_auth')?.kind).toBe('not_sent');
    now = 60_000;
    expect(tokens.failureOf('invalid_auth')?.kind).toBe('permanent');
    expect(tokens.failureOf('channel_not_found')).toBeUndefined();
    tokens.accepted();
    expect(tokens.failureOf('account_inactive')?.kind).toBe('not_sent');
  });
});
