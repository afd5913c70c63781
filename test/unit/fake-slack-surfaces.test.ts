import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeSlack } from '../support/fake-slack.js';

const modal = (over: Record<string, unknown> = {}) => ({
  type: 'modal',
  title: { type: 'plain_text', text: 'Send to docs agent' },
  submit: { type: 'plain_text', text: 'Start job' },
  blocks: [
    {
      type: 'input',
      block_id: 'b',
      label: { type: 'plain_text', text: 'Instruction' },
      element: { type: 'plain_text_input', action_id: 'a' },
    },
  ],
  ...over,
});

describe('fake Slack surfaces', () => {
  let slack: FakeSlack;
  let client: WebClient;
  beforeAll(async () => {
    slack = await FakeSlack.start();
    client = new WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
  });
  afterAll(() => slack.close());

  const error = (promise: Promise<unknown>) =>
    promise.then(
      () => 'ok',
      (e: { data?: { error?: string } }) => e.data?.error,
    );

  it('opens a modal once per minted trigger_id, and never with an expired or unknown one', async () => {
    const trigger = slack.surfaces.mintTriggerId();
    const opened = await client.views.open({ trigger_id: trigger, view: modal() as never });
    expect(opened.view?.id).toMatch(/^V/);
    expect(slack.surfaces.modals.get(opened.view!.id!)?.userId).toBe('U0ALICE');
    expect(await error(client.views.open({ trigger_id: trigger, view: modal() as never }))).toBe(
      'invalid_trigger_id',
    );
    expect(await error(client.views.open({ trigger_id: '1.2.3', view: modal() as never }))).toBe(
      'invalid_trigger_id',
    );
    const late = slack.surfaces.mintTriggerId();
    const realNow = slack.surfaces.now;
    slack.surfaces.now = () => realNow() + 3001;
    try {
      expect(await error(client.views.open({ trigger_id: late, view: modal() as never }))).toBe(
        'expired_trigger_id',
      );
    } finally {
      slack.surfaces.now = realNow;
    }
  });

  it.each([
    [
      'a title over 24 characters',
      { title: { type: 'plain_text', text: 'x'.repeat(25) } },
      '/view/title/text',
    ],
    [
      'a submit over 24 characters',
      { submit: { type: 'plain_text', text: 'x'.repeat(25) } },
      '/view/submit/text',
    ],
    [
      'a close over 24 characters',
      { close: { type: 'plain_text', text: 'x'.repeat(25) } },
      '/view/close/text',
    ],
    ['a callback_id over 255', { callback_id: 'c'.repeat(256) }, '/view/callback_id'],
    ['private_metadata over 3000', { private_metadata: 'm'.repeat(3001) }, '/view/private_metadata'],
    ['101 blocks', { blocks: Array.from({ length: 101 }, () => ({ type: 'divider' })) }, '/view/blocks]'],
    ['an input without submit', { submit: undefined }, '/view/submit'],
    [
      'an initial_value over 3000',
      {
        blocks: [
          {
            type: 'input',
            label: { type: 'plain_text', text: 'L' },
            element: { type: 'plain_text_input', action_id: 'a', initial_value: 'v'.repeat(3001) },
          },
        ],
      },
      '/view/blocks/0/element/initial_value',
    ],
  ])('refuses a modal with %s', async (_what, over, pointer) => {
    const result = await client.views
      .open({ trigger_id: slack.surfaces.mintTriggerId(), view: modal(over) as never })
      .catch((e: { data: { error: string; response_metadata?: { messages?: string[] } } }) => e.data);
    expect(result).toMatchObject({ error: 'invalid_arguments' });
    expect(JSON.stringify(result)).toContain(pointer);
  });

  it('accepts a modal exactly at the limits', async () => {
    const view = modal({
      title: { type: 'plain_text', text: 't'.repeat(24) },
      submit: { type: 'plain_text', text: 's'.repeat(24) },
      callback_id: 'c'.repeat(255),
      private_metadata: 'm'.repeat(3000),
    });
    const opened = await client.views.open({
      trigger_id: slack.surfaces.mintTriggerId(),
      view: view as never,
    });
    expect(opened.ok).toBe(true);
  });

  it('updates an open modal by id, refusing a stale hash', async () => {
    const opened = await client.views.open({
      trigger_id: slack.surfaces.mintTriggerId(),
      view: modal() as never,
    });
    const id = opened.view!.id!;
    const next = modal({ title: { type: 'plain_text', text: 'Job started' } });
    expect(await error(client.views.update({ view_id: id, hash: 'stale', view: next as never }))).toBe(
      'hash_conflict',
    );
    await client.views.update({ view_id: id, hash: opened.view!.hash!, view: next as never });
    expect(slack.surfaces.modals.get(id)?.view.title).toEqual({ type: 'plain_text', text: 'Job started' });
    expect(await error(client.views.update({ view_id: 'V0NONE', view: next as never }))).toBe('not_found');
  });

  it('publishes a Home view only over the view whose hash it names, when it names one', async () => {
    const home = (text: string) => ({
      type: 'home',
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
    });
    const first = await client.views.publish({ user_id: 'U0HASH', view: home('one') as never });
    const hash = first.view!.hash!;
    const second = await client.views.publish({ user_id: 'U0HASH', view: home('two') as never, hash });
    expect(second.view!.hash).not.toBe(hash);
    // A publish built on the first view's hash, after the second: refused, the second stays.
    expect(await error(client.views.publish({ user_id: 'U0HASH', view: home('stale') as never, hash }))).toBe(
      'hash_conflict',
    );
    expect(JSON.stringify(slack.surfaces.homeOf('U0HASH'))).toContain('two');
  });

  it('publishes Home views per user, keeping the last, at most 100 blocks', async () => {
    const home = (n: number) => ({
      type: 'home',
      blocks: Array.from({ length: n }, () => ({ type: 'divider' })),
    });
    await client.views.publish({ user_id: 'U0ALICE', view: home(1) as never });
    await client.views.publish({ user_id: 'U0ALICE', view: home(100) as never });
    await client.views.publish({ user_id: 'U0BOB', view: home(2) as never });
    expect(slack.surfaces.homeOf('U0ALICE')?.blocks).toHaveLength(100);
    expect(slack.surfaces.homeOf('U0BOB')?.blocks).toHaveLength(2);
    expect(await error(client.views.publish({ user_id: 'U0ALICE', view: home(101) as never }))).toBe(
      'invalid_arguments',
    );
    expect(await error(client.views.publish({ user_id: 'U0ALICE', view: modal() as never }))).toBe(
      'invalid_arguments',
    );
  });

  it('reads one message with history latest/inclusive/limit, and a reply with replies', async () => {
    const first = await client.chat.postMessage({ channel: 'C0READ', text: 'first' });
    const second = await client.chat.postMessage({ channel: 'C0READ', text: 'second' });
    const reply = await client.chat.postMessage({ channel: 'C0READ', text: 'a reply', thread_ts: first.ts! });
    const one = await client.conversations.history({
      channel: 'C0READ',
      latest: first.ts!,
      inclusive: true,
      limit: 1,
    });
    expect(one.messages?.map((m) => m.text)).toEqual(['first']);
    const exclusive = await client.conversations.history({ channel: 'C0READ', latest: second.ts!, limit: 1 });
    expect(exclusive.messages?.map((m) => m.text)).toEqual(['first']);
    const thread = await client.conversations.replies({
      channel: 'C0READ',
      ts: reply.ts!,
      latest: reply.ts!,
      oldest: reply.ts!,
      inclusive: true,
    });
    // Slack always answers the thread's parent first, whichever message of the thread `ts` names.
    expect(thread.messages?.map((m) => m.text)).toEqual(['first', 'a reply']);
  });

  it('answers not_in_channel for channels the bot is not in', async () => {
    slack.notMemberOf.add('C0SECRET');
    expect(await error(client.conversations.history({ channel: 'C0SECRET', latest: '1.0', limit: 1 }))).toBe(
      'not_in_channel',
    );
    expect(await error(client.conversations.replies({ channel: 'C0SECRET', ts: '1.0' }))).toBe(
      'not_in_channel',
    );
  });
});
