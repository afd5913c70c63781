import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeSlack } from '../support/fake-slack.js';

/** The fake's AI app container answers the real WebClient as Slack does, errors included. */
describe('fake Slack assistant container and streams', () => {
  let slack: FakeSlack;
  let client: WebClient;
  beforeAll(async () => {
    slack = await FakeSlack.start();
    client = new WebClient('xoxb-test', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } });
  });
  afterAll(async () => {
    await slack.close();
  });

  const code = (promise: Promise<unknown>) =>
    promise.then(
      () => 'ok',
      (error: { data?: { error?: string } }) => error.data?.error,
    );
  const step = { type: 'task_update', id: 'a', title: 'Agent working', status: 'in_progress' } as const;

  it('streams through chatStream() and refuses what Slack refuses', async () => {
    const target = { channel: 'D1', thread_ts: '1.000001' };
    expect(await code(client.chat.startStream({ ...target, recipient_user_id: 'U1' }))).toBe(
      'missing_recipient_team_id',
    );
    const streamer = client.chatStream({ ...target, recipient_team_id: 'T1', recipient_user_id: 'U1' });
    await streamer.append({ chunks: [step] });
    const ts = streamer.ts!;
    expect(
      await code(
        client.chat.appendStream({ channel: 'D1', ts, chunks: [{ ...step, status: 'nope' }] as never }),
      ),
    ).toBe('invalid_chunks');
    await client.chat.stopStream({ channel: 'D1', ts, chunks: [{ ...step, status: 'complete' }] });
    expect(slack.assistant.streams.get(`D1:${ts}`)?.steps.get('a')?.status).toBe('complete');
    expect(await code(client.chat.appendStream({ channel: 'D1', ts, chunks: [step] }))).toBe(
      'message_not_in_streaming_state',
    );
    slack.assistant.refuseStreaming = 'feature_not_enabled';
    expect(
      await code(client.chat.startStream({ ...target, recipient_team_id: 'T1', recipient_user_id: 'U1' })),
    ).toBe('feature_not_enabled');
    slack.assistant.refuseStreaming = undefined;
  });

  it('ends a stream after its lifetime', async () => {
    const { ts } = await client.chat.startStream({
      channel: 'D1',
      thread_ts: '1.000002',
      recipient_team_id: 'T1',
      recipient_user_id: 'U1',
    });
    slack.assistant.expireStreams();
    expect(await code(client.chat.appendStream({ channel: 'D1', ts: ts!, chunks: [step] }))).toBe(
      'message_not_in_streaming_state',
    );
  });

  it('keeps statuses, titles and at most four prompts per thread', async () => {
    const thread = { channel_id: 'D1', thread_ts: '1.000003' };
    await client.assistant.threads.setStatus({ ...thread, status: 'is working…' });
    expect(slack.assistant.statusOf('D1', '1.000003')).toBe('is working…');
    await client.assistant.threads.setStatus({ ...thread, status: '' });
    expect(slack.assistant.statusOf('D1', '1.000003')).toBe('');
    const prompt = { title: 't', message: 'm' };
    expect(
      await code(
        client.assistant.threads.setSuggestedPrompts({ ...thread, prompts: Array(5).fill(prompt) as never }),
      ),
    ).toBe('invalid_arguments');
    await client.assistant.threads.setTitle({ ...thread, title: 'Docs' });
    expect(slack.assistant.titles.at(-1)?.title).toBe('Docs');
  });

  it('keeps agent-session statuses, stops streams on Stop as Slack does, and ends a stream with blocks', async () => {
    const target = { channel: 'D3', thread_ts: '3.000001' };
    expect(
      await code(
        client.agents.sessions.setStatus({ channel_id: 'D3', thread_ts: '3.000001', status: 'busy' }),
      ),
    ).toBe('invalid_arguments');
    await client.agents.sessions.setStatus({ channel_id: 'D3', thread_ts: '3.000001', status: 'processing' });
    expect(slack.assistant.sessionOf('D3', '3.000001')).toBe('processing');
    const first = await client.chat.startStream({
      ...target,
      recipient_team_id: 'T1',
      recipient_user_id: 'U1',
    });
    expect(slack.assistant.stopByUser('D3', '3.000001')).toEqual([first.ts]);
    expect(await code(client.chat.stopStream({ channel: 'D3', ts: first.ts! }))).toBe(
      'message_not_in_streaming_state',
    );
    expect(slack.assistant.refusedOver).toContainEqual({ method: 'chat.stopStream', ts: first.ts });
    const second = await client.chat.startStream({
      ...target,
      recipient_team_id: 'T1',
      recipient_user_id: 'U1',
    });
    await client.chat.stopStream({
      channel: 'D3',
      ts: second.ts!,
      blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'result' } }],
      metadata: { event_type: 'docs_agent', event_payload: { key: 'terminal:j:1' } },
    });
    const message = slack.message('D3', second.ts!);
    expect(JSON.stringify(message?.blocks)).toContain('result');
    expect(message?.metadata?.event_payload).toEqual({ key: 'terminal:j:1' });
  });
});
