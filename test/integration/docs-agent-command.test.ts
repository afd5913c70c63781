import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../support/http.js';
import { postSigned, slashCommandBody } from '../support/slack-signing.js';
import { SIGNING_SECRET, startTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

function cardOf(t: TestApp) {
  const card = t.slack.messages.find((m) => !m.thread_ts);
  if (!card) throw new Error('no card posted');
  return card;
}

describe('/docs-agent end to end', () => {
  it('acks at once, posts a card, follows the job and replies once with the PR link', async () => {
    app = await startTestApp();
    const t = app;
    const ack = await t.command({ text: 'Document the new 429 response on the jobs API' });
    expect(ack.status).toBe(200);

    const job = await waitFor(() => (t.docs.jobs.size === 1 ? t.docs.onlyJob : undefined), {
      what: 'job created',
    });
    expect(job.prompts).toEqual(['Document the new 429 response on the jobs API']);
    await waitFor(() => t.slack.callsOf('chat.update').length > 0, { what: 'card update' });
    const card = cardOf(t);
    // No job id on the card (issue 46): its ⋯ menu gives it.
    const shown = JSON.stringify(card.blocks, (key, value) => (key === 'block_id' ? undefined : value));
    expect(shown).not.toContain(job.id);
    expect(JSON.stringify(card.blocks)).toContain('Copy job ID');
    expect(JSON.stringify(card.blocks)).toContain('Working');
    t.docs.complete(job.id, 'https://github.com/acme/docs/pull/42');

    const reply = await waitFor(() => t.slack.threadReplies(card.channel, card.ts)[0], {
      what: 'terminal reply',
    });
    expect(reply.text).toContain('https://github.com/acme/docs/pull/42');
    const blocks = JSON.stringify(reply.blocks);
    expect(blocks).toContain('View pull request');
    expect(blocks).toContain('<@U0ALICE>');
    await waitFor(() => JSON.stringify(cardOf(t).blocks).includes('pull request opened'), {
      what: 'final card',
    });

    // Polling stops and the reply is never repeated.
    const polls = t.docs.requestsTo('GET', /\/job\//).length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(t.docs.requestsTo('GET', /\/job\//).length).toBe(polls);
    expect(t.slack.threadReplies(card.channel, card.ts)).toHaveLength(1);
  });

  it('answers help ephemerally with usage for empty text and for "help"', async () => {
    app = await startTestApp();
    for (const text of ['', '   ', 'help']) {
      const ack = await app.command({ text });
      expect(ack.status).toBe(200);
      const body = JSON.parse(ack.body) as { response_type: string; text: string; blocks: unknown[] };
      expect(body.response_type).toBe('ephemeral');
      // Escaped: a bare <instruction> in mrkdwn is read by Slack as a link.
      expect(JSON.stringify(body.blocks)).toContain('/docs-agent &lt;instruction&gt;');
      expect(JSON.stringify(body.blocks)).not.toContain('<instruction>');
      // Single-workspace mode: the docs project is the operator's, nothing to connect from Slack.
      expect(JSON.stringify(body.blocks)).not.toContain('connect');
    }
    expect(app.docs.requests).toHaveLength(0);
  });

  it('answers status with a word that is no job id with usage and starts nothing', async () => {
    app = await startTestApp();
    const ack = await app.command({ text: 'status job/0001' });
    expect(ack.status).toBe(200);
    const body = JSON.parse(ack.body) as { response_type: string; text: string };
    expect(body.response_type).toBe('ephemeral');
    expect(body.text).toContain('/docs-agent status &lt;job id&gt;');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(app.docs.requests).toHaveLength(0);
    expect(app.slack.messages).toHaveLength(0);
  });

  it('rejects forged and stale signatures without running anything', async () => {
    app = await startTestApp();
    const body = slashCommandBody({ text: 'do something', response_url: app.slack.responseUrl() });
    const forged = await postSigned(`${app.url}/slack/events`, body, 'wrong-secret');
    expect(forged.status).toBe(401);
    const stale = await postSigned(`${app.url}/slack/events`, body, SIGNING_SECRET, {
      timestamp: Math.floor(Date.now() / 1000) - 10 * 60,
    });
    expect(stale.status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(app.docs.requests).toHaveLength(0);
    expect(app.slack.callsOf('chat.postMessage')).toHaveLength(0);
  });

  it('acks while the docs API is still slow', async () => {
    app = await startTestApp();
    app.docs.latencyMs = 1500;
    const ack = await app.command({ text: 'Slow one' });
    expect(ack.status).toBe(200);
    // Acknowledged before the platform answered the create (the fake stores the job only when it answers).
    expect(app.docs.jobs.size).toBe(0);
    await waitFor(() => app!.docs.jobs.size === 1, { what: 'job eventually created' });
  });

  it('serves /healthz', async () => {
    app = await startTestApp();
    const response = await fetch(`${app.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });
});

describe('View pull request button', () => {
  it('acknowledges the link button’s click so Slack shows no error', async () => {
    app = await startTestApp();
    const response = await app.interaction({
      type: 'block_actions',
      team: { id: 'T0TEAM' },
      user: { id: 'U0ALICE' },
      api_app_id: 'A0DOCSAGENT',
      container: { type: 'message', channel_id: 'C0DOCS', message_ts: '1.000001' },
      channel: { id: 'C0DOCS' },
      trigger_id: '1.2.3',
      response_url: app.slack.responseUrl('button'),
      actions: [
        {
          type: 'button',
          action_id: 'open_pull_request',
          block_id: 'b',
          action_ts: '1.2',
          url: 'https://github.com/acme/docs/pull/1',
        },
      ],
    });
    expect(response.status).toBe(200);
    expect(app.logs.join('\n')).not.toMatch(/unhandled/i);
  });
});
