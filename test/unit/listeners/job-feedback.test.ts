import type { BlockFeedbackButtonsAction } from '@slack/bolt';
import { describe, expect, it, vi } from 'vitest';
import { jobFeedbackAction } from '../../../src/slack/listeners/actions/job-feedback.js';
import { StateUnavailableError } from '../../../src/state/keyv-job-store.js';
import { access, answers, buttonClick, only, recordingLogger, USER } from './fakes.js';

function setup(rate: (input: unknown) => Promise<unknown>) {
  const { logger } = recordingLogger();
  const { ack, respond, calls } = answers();
  const feedback = { rate: vi.fn(rate) };
  const callback = jobFeedbackAction({ logger, access: access(), feedback: feedback as never });
  const click = (value: string) => {
    const { body, action } = buttonClick('job_feedback', value);
    const feedbackAction = {
      ...action,
      type: 'feedback_buttons',
    } as BlockFeedbackButtonsAction['actions'][number];
    return callback({
      ack,
      respond,
      body: body as unknown as BlockFeedbackButtonsAction,
      action: feedbackAction,
    });
  };
  return { click, calls, respond, feedback };
}

describe('jobFeedbackAction (👍 / 👎 on a PR reply)', () => {
  it('acknowledges first, records the clicker’s vote on the job named by the button, answers only them', async () => {
    const t = setup(async () => ({ ok: true, change: 'new' }));
    await t.click('useful:job_1');
    expect(t.calls).toEqual(['ack', 'respond']);
    expect(t.feedback.rate).toHaveBeenCalledWith({
      vote: 'useful',
      jobId: 'job_1',
      channelId: 'C0DOCS',
      userId: USER,
    });
    expect(only(t.respond)).toMatchObject({ response_type: 'ephemeral', replace_original: false });
  });

  it('with the state store down, says nothing was recorded and to click again', async () => {
    const t = setup(async () => {
      throw new StateUnavailableError(new Error('ECONNREFUSED'));
    });
    await t.click('not_useful:job_1');
    expect(String(only(t.respond).text)).toContain("can't reach my storage");
  });

  it('a value the bot did not write records nothing', async () => {
    const t = setup(async () => ({ ok: true, change: 'new' }));
    await t.click('maybe:job_1');
    expect(t.feedback.rate).not.toHaveBeenCalled();
    expect(String(only(t.respond).text)).toContain("wasn't recorded");
  });
});
