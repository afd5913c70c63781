import { describe, expect, it } from 'vitest';
import { newJobRecord } from '../../src/jobs/domain/job.js';
import { feedbackBlock, parseFeedbackValue } from '../../src/slack/messages/job-feedback.js';
import { terminalReplyMessage } from '../../src/slack/messages/job-replies.js';
import { checkMessage } from '../support/slack-block-kit-limits.js';

const record = newJobRecord(
  {
    jobId: 'job_1',
    teamId: null,
    channelId: 'C1',
    threadTs: '1.000001',
    cardTs: '1.000002',
    requesterId: 'U1',
    prompt: 'tidy',
    origin: 'command',
    status: 'completed',
    repository: null,
    ref: 'docs-agent/x',
    model: null,
    prLink: 'https://github.com/a/b/pull/1',
  },
  1_000,
);

const types = (blocks: Array<{ type: string }>) => blocks.map((b) => b.type);

describe('feedback buttons on a job result', () => {
  it('a PR reply carries Slack’s feedback buttons, which pass the fake’s Block Kit rules; other outcomes none', () => {
    const pr = terminalReplyMessage(record, { kind: 'pull_request', prLink: record.prLink! }, 5_000);
    expect(types(pr.blocks)).toContain('context_actions');
    expect(checkMessage(pr)).toEqual({ ok: true });
    const failed = terminalReplyMessage(record, { kind: 'failed' }, 5_000);
    expect(types(failed.blocks)).not.toContain('context_actions');
  });

  it('values name the vote and the job, and only those parse', () => {
    const block = feedbackBlock('job_1', 2) as unknown as {
      block_id: string;
      elements: Array<{ positive_button: { value: string }; negative_button: { value: string } }>;
    };
    expect(block.block_id).toBe('job_feedback_2');
    expect(parseFeedbackValue(block.elements[0]!.positive_button.value)).toEqual({
      vote: 'useful',
      jobId: 'job_1',
    });
    expect(parseFeedbackValue(block.elements[0]!.negative_button.value)).toEqual({
      vote: 'not_useful',
      jobId: 'job_1',
    });
    for (const bad of ['', 'useful', 'useful:', 'maybe:job_1', ':job_1', 'x'.repeat(3000), 42, null])
      expect(parseFeedbackValue(bad)).toBeUndefined();
    expect(feedbackBlock('j'.repeat(2000), 1)).toBeUndefined();
  });
});

describe('the fake Slack’s rules for context_actions / feedback_buttons (as Slack documents them)', () => {
  const buttons = (over: Record<string, unknown> = {}) => ({
    type: 'feedback_buttons',
    action_id: 'a',
    positive_button: { text: { type: 'plain_text', text: '👍' }, value: 'up' },
    negative_button: { text: { type: 'plain_text', text: '👎' }, value: 'down' },
    ...over,
  });
  const refused = (blocks: unknown[]) => checkMessage({ text: 't', blocks }).ok === false;

  it('accepts the documented shape, refuses what Slack refuses', () => {
    expect(refused([{ type: 'context_actions', elements: [buttons()] }])).toBe(false);
    expect(refused([{ type: 'context_actions', elements: [] }])).toBe(true);
    expect(refused([{ type: 'context_actions', elements: Array(6).fill(buttons()) }])).toBe(true);
    expect(
      refused([
        { type: 'context_actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'x' } }] },
      ]),
    ).toBe(true);
    expect(refused([{ type: 'context_actions', elements: [buttons({ negative_button: undefined })] }])).toBe(
      true,
    );
    const long = { text: { type: 'plain_text', text: 'x'.repeat(76) }, value: 'v' };
    expect(refused([{ type: 'context_actions', elements: [buttons({ positive_button: long })] }])).toBe(true);
    const mrkdwn = { text: { type: 'mrkdwn', text: 'x' }, value: 'v' };
    expect(refused([{ type: 'context_actions', elements: [buttons({ positive_button: mrkdwn })] }])).toBe(
      true,
    );
    const noValue = { text: { type: 'plain_text', text: 'x' }, value: '' };
    expect(refused([{ type: 'context_actions', elements: [buttons({ positive_button: noValue })] }])).toBe(
      true,
    );
    // Feedback buttons belong in context_actions only.
    expect(refused([{ type: 'actions', elements: [buttons()] }])).toBe(true);
  });
});
