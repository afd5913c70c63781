import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeSlack } from '../support/fake-slack.js';
import { manifestBotScopes } from '../support/fake-slack-strict.js';
import { BOT_TOKEN } from '../support/test-app.js';

/** Issue 38: the fake Slack refuses what Slack refuses before reading a call: method, token, scope. */
let slack: FakeSlack;
beforeEach(async () => {
  slack = await FakeSlack.start();
});
afterEach(async () => slack.close());

async function call(method: string, form: Record<string, string>, token = BOT_TOKEN) {
  const response = await fetch(`${slack.apiUrl}${method}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: new URLSearchParams(form).toString(),
  });
  return (await response.json()) as Record<string, unknown>;
}

describe('the strict fake Slack', () => {
  it('reads its scopes from manifest.yml', () => {
    expect(manifestBotScopes()).toContain('chat:write');
    expect(manifestBotScopes()).not.toContain('im:read');
  });

  it('refuses a method Slack does not have, a call without a token and a token it never issued', async () => {
    expect(await call('chat.postMessagee', { channel: 'C1', text: 'hi' })).toEqual({
      ok: false,
      error: 'unknown_method',
    });
    expect(await call('chat.postMessage', { channel: 'C1', text: 'hi' }, '')).toEqual({
      ok: false,
      error: 'not_authed',
    });
    expect(await call('chat.postMessage', { channel: 'C1', text: 'hi' }, 'xoxb-someone-else')).toEqual({
      ok: false,
      error: 'invalid_auth',
    });
    expect(slack.messages).toEqual([]);
    expect(await call('chat.postMessage', { channel: 'C1', text: 'hi' })).toMatchObject({ ok: true });
  });

  it('refuses a method whose scope manifest.yml does not ask for', async () => {
    // Reading a DM's members needs im:read, which the app does not ask for; a channel's needs channels:read.
    expect(await call('conversations.members', { channel: 'D0DM' })).toMatchObject({
      ok: false,
      error: 'missing_scope',
      needed: 'im:read',
    });
    expect(await call('conversations.members', { channel: 'C0PUBLIC' })).toMatchObject({ ok: true });
  });
});
