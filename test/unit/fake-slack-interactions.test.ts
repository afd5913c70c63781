import { createServer } from 'node:http';
import { verifySlackRequest } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import {
  appHomeOpenedEnvelope,
  blockActionsPayload,
  messageActionPayload,
  postInteraction,
  reactionAddedEnvelope,
  viewSubmissionPayload,
} from '../support/slack-interactions.js';

describe('interaction payloads', () => {
  it('are form-encoded payloads signed as Slack signs them', async () => {
    const secret = 'signing-secret';
    const received: Array<{ ok: boolean; payload: Record<string, unknown> }> = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        let ok = true;
        try {
          verifySlackRequest({
            signingSecret: secret,
            body,
            headers: {
              'x-slack-signature': String(req.headers['x-slack-signature']),
              'x-slack-request-timestamp': Number(req.headers['x-slack-request-timestamp']),
            },
          });
        } catch {
          ok = false;
        }
        received.push({ ok, payload: JSON.parse(new URLSearchParams(body).get('payload') ?? '{}') });
        res.end('');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const url = `http://127.0.0.1:${port}/slack/events`;
    const shortcut = messageActionPayload({
      triggerId: 't',
      responseUrl: 'https://hooks.slack.test/r',
      message: { text: 'in a thread', ts: '2.000', thread_ts: '1.000' },
    });
    await postInteraction(url, shortcut, secret);
    server.close();
    expect(received[0]?.ok).toBe(true);
    expect(received[0]?.payload).toMatchObject({
      type: 'message_action',
      callback_id: 'docs_agent_from_message',
      message_ts: '2.000',
      channel: { id: 'C0DOCS' },
      message: { ts: '2.000', thread_ts: '1.000', text: 'in a thread', user: 'U0BOB' },
    });
  });

  it('echo the view with state values and metadata on submission', () => {
    const payload = viewSubmissionPayload({
      view: { callback_id: 'cb', private_metadata: '{"o":"home"}' },
      values: { b: { a: { type: 'plain_text_input', value: 'x' } } },
    });
    expect(payload).toMatchObject({
      type: 'view_submission',
      view: {
        type: 'modal',
        callback_id: 'cb',
        private_metadata: '{"o":"home"}',
        state: { values: { b: { a: { value: 'x' } } } },
      },
    });
  });

  it('carry a trigger_id and the container on a Home button click', () => {
    const payload = blockActionsPayload({
      triggerId: 'trig',
      action: { action_id: 'new_job' },
      container: { type: 'view', view: { type: 'home' }, viewId: 'V1' },
    });
    expect(payload).toMatchObject({
      type: 'block_actions',
      trigger_id: 'trig',
      container: { type: 'view', view_id: 'V1' },
      view: { id: 'V1', type: 'home' },
      actions: [{ action_id: 'new_job', type: 'button' }],
    });
    expect(payload).not.toHaveProperty('response_url');
  });

  it('wrap reaction_added and app_home_opened in Events API envelopes', () => {
    const reaction = reactionAddedEnvelope({ ts: '1.000', itemUser: 'U0BOB', eventId: 'Ev1' });
    expect(reaction).toMatchObject({
      type: 'event_callback',
      event_id: 'Ev1',
      event: {
        type: 'reaction_added',
        reaction: 'memo',
        item: { type: 'message', channel: 'C0DOCS', ts: '1.000' },
        item_user: 'U0BOB',
      },
    });
    expect(appHomeOpenedEnvelope({})).toMatchObject({
      event: { type: 'app_home_opened', tab: 'home', user: 'U0ALICE' },
    });
  });
});
