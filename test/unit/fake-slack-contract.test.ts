import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { METHOD_SCOPE_RULES } from '../../scripts/lib/slack-method-scopes.js';
import { FakeSlack } from '../support/fake-slack.js';
import { REQUIRED_ARGUMENTS } from '../support/fake-slack-arguments.js';
import { BOT_TOKEN } from '../support/test-app.js';

/**
 * Issue 45: the fake Slack holds the bot to Slack's published contract: each method's required arguments
 * (@slack/web-api's request types) and Block Kit on every surface (@slack/types, Slack's limits).
 */
let slack: FakeSlack;
beforeEach(async () => {
  slack = await FakeSlack.start();
});
afterEach(async () => slack.close());

/** A call as the WebClient makes it: a form body, nested values JSON-encoded. */
async function call(method: string, args: Record<string, unknown>) {
  const form = Object.entries(args).map(([k, v]): [string, string] => [
    k,
    typeof v === 'string' ? v : JSON.stringify(v),
  ]);
  const response = await fetch(`${slack.apiUrl}${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Bearer ${BOT_TOKEN}` },
    body: new URLSearchParams(form).toString(),
  });
  return (await response.json()) as Record<string, unknown>;
}

const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });
const option = (value: string) => ({ text: { type: 'plain_text', text: value }, value });

describe('the fake Slack’s required arguments', () => {
  it('knows the required arguments of every method it knows the scopes of', () => {
    expect(Object.keys(REQUIRED_ARGUMENTS).sort()).toEqual(Object.keys(METHOD_SCOPE_RULES).sort());
  });

  it('refuses a message without a channel or without any content, as Slack names them', async () => {
    expect(await call('chat.postMessage', { text: 'hi' })).toEqual({ ok: false, error: 'channel_not_found' });
    expect(await call('chat.postMessage', { channel: 'C1' })).toEqual({ ok: false, error: 'no_text' });
    expect(await call('chat.postMessage', { channel: 'C1', blocks: [] })).toEqual({
      ok: false,
      error: 'no_text',
    });
    expect(await call('chat.update', { channel: 'C1', text: 'hi' })).toMatchObject({
      error: 'invalid_arguments',
      response_metadata: { messages: ['[ERROR] missing required field: ts'] },
    });
    expect(slack.messages).toEqual([]);
    expect(await call('chat.postMessage', { channel: 'C1', blocks: [section('hi')] })).toMatchObject({
      ok: true,
    });
  });

  it('refuses other methods missing one with invalid_arguments and names it', async () => {
    expect(await call('reactions.add', { channel: 'C1', name: 'eyes' })).toEqual({
      ok: false,
      error: 'invalid_arguments',
      response_metadata: { messages: ['[ERROR] missing required field: timestamp'] },
    });
    const modal = { type: 'modal', title: { type: 'plain_text', text: 'T' }, blocks: [] };
    expect(await call('views.open', { view: modal })).toMatchObject({
      error: 'invalid_arguments',
      response_metadata: {
        messages: ['[ERROR] missing required field: trigger_id or interactivity_pointer'],
      },
    });
    expect(await call('assistant.threads.setStatus', { channel_id: 'D1', thread_ts: '1.0' })).toMatchObject({
      error: 'invalid_arguments',
    });
    // An empty status is no missing one: it clears the status.
    const cleared = { channel_id: 'D1', thread_ts: '1.0', status: '' };
    expect(await call('assistant.threads.setStatus', cleared)).toMatchObject({ ok: true });
    expect(slack.surfaces.refusals).toEqual([]);
  });
});

describe('the fake Slack’s Block Kit', () => {
  it('refuses a block type it does not know and an element where Slack allows none, with json-pointers', async () => {
    const refused = await call('chat.postMessage', {
      channel: 'C1',
      text: 'hi',
      blocks: [
        { type: 'sectoin', text: { type: 'mrkdwn', text: 'typo' } },
        { type: 'actions', elements: [{ type: 'plain_text_input', action_id: 'a' }] },
        {
          type: 'section',
          text: { type: 'mrkdwn', text: 'x' },
          accessory: { type: 'overflow', options: [] },
        },
      ],
    });
    expect(refused).toEqual({
      ok: false,
      error: 'invalid_blocks',
      errors: [
        'must be a valid enum value [json-pointer:/blocks/0/type]',
        'must be a valid enum value [json-pointer:/blocks/1/elements/0/type]',
        'must be between 1 and 5 items [json-pointer:/blocks/2/accessory/options]',
      ],
    });
    expect(slack.messages).toEqual([]);
  });

  it('checks every element’s limits: options, placeholders, input lengths, rich text, images', async () => {
    const long = 'x'.repeat(151);
    const refused = await call('chat.postEphemeral', {
      channel: 'C1',
      user: 'U1',
      text: 'hi',
      blocks: [
        {
          type: 'actions',
          elements: [{ type: 'checkboxes', options: [{ text: { type: 'plain_text', text: 'a' } }] }],
        },
        {
          type: 'actions',
          elements: [{ type: 'conversations_select', placeholder: { type: 'mrkdwn', text: 'a' } }],
        },
        { type: 'actions', elements: [{ type: 'static_select', options: [option(long)] }] },
        { type: 'rich_text', elements: [{ type: 'rich_text_quote', elements: [{ type: 'text' }] }] },
        { type: 'image', image_url: 'https://example.com/a.png' },
      ],
    });
    expect(refused).toMatchObject({ ok: false, error: 'invalid_blocks' });
    expect(refused.errors).toEqual([
      'must be more than 0 characters [json-pointer:/blocks/0/elements/0/options/0/value]',
      'must be a valid enum value [json-pointer:/blocks/1/elements/0/placeholder/type]',
      'must be less than 76 characters [json-pointer:/blocks/2/elements/0/options/0/text/text]',
      'must be less than 151 characters [json-pointer:/blocks/2/elements/0/options/0/value]',
      'must provide a string [json-pointer:/blocks/3/elements/0/elements/0/text]',
      'must be more than 0 characters [json-pointer:/blocks/4/alt_text]',
    ]);
  });

  it('checks modals and Home tabs, whose input blocks need a label and an input element', async () => {
    const home = {
      type: 'home',
      blocks: [
        { type: 'input', element: { type: 'plain_text_input', max_length: 3001 } },
        { type: 'input', label: { type: 'plain_text', text: 'L' }, element: { type: 'button' } },
      ],
    };
    expect(await call('views.publish', { user_id: 'U1', view: home })).toEqual({
      ok: false,
      error: 'invalid_arguments',
      response_metadata: {
        messages: [
          'must provide an object [json-pointer:/view/blocks/0/label]',
          'must be between 1 and 3000 [json-pointer:/view/blocks/0/element/max_length]',
          'must be a valid enum value [json-pointer:/view/blocks/1/element/type]',
        ],
      },
    });
  });

  it('checks the blocks of a stream’s end and of a response_url answer', async () => {
    const bad = [{ type: 'section' }];
    expect(await call('chat.stopStream', { channel: 'D1', ts: '1.0', blocks: bad })).toMatchObject({
      error: 'invalid_blocks',
      errors: ['must provide text or fields [json-pointer:/blocks/0]'],
    });
    const answer = await fetch(slack.responseUrl(), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'hi', blocks: bad }),
    });
    expect([answer.status, await answer.text()]).toEqual([400, 'invalid_blocks']);
    expect(slack.responses).toEqual([]);
    expect(slack.blockKit.refusals.map((r) => r.method)).toEqual(['chat.stopStream', 'response_url']);
  });
});
