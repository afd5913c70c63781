import { describe, expect, it, vi } from 'vitest';
import { newJobRecord } from '../../../src/jobs/domain/job.js';
import { jobRetry } from '../../../src/slack/listeners/actions/job-retry.js';
import { JOB_RETRY_ACTION, jobCardMessage } from '../../../src/slack/messages/job-card.js';
import { decodeRefs } from '../../../src/slack/messages/job-modal.js';
import { buttonClick, CHANNEL, recordingLogger } from './fakes.js';

const NOW = Date.parse('2026-11-21T10:00:00Z');
const failed = {
  ...newJobRecord(
    {
      jobId: 'job_0001',
      teamId: 'T0TEAM',
      channelId: CHANNEL,
      threadTs: '1700000000.000050',
      cardTs: '1700000000.000050',
      requesterId: 'U0ALICE',
      prompt: 'Document the 429 response',
      origin: 'command',
      status: 'failed',
      repository: null,
      ref: null,
      model: null,
      prLink: null,
    },
    NOW - 60_000,
  ),
};

function setup(record: typeof failed | undefined) {
  const open = vi.fn(async () => ({}));
  const respond = vi.fn(async () => ({}));
  const jobOfThread = vi.fn(async () => record);
  const handler = jobRetry({ logger: recordingLogger().logger, jobs: { jobOfThread } as never });
  const { body } = buttonClick(JOB_RETRY_ACTION, undefined, {
    container: { type: 'message', message_ts: '1700000000.000050', channel_id: CHANNEL, is_ephemeral: false },
  });
  const run = () => handler({ ack: async () => {}, body, respond, client: { views: { open } } } as never);
  return { open, respond, jobOfThread, run };
}

describe('Retry on a failed job card', () => {
  it('is on a failed card only, beside no pull request', () => {
    const card = (status: string) =>
      JSON.stringify(
        jobCardMessage({
          requesterId: 'U0ALICE',
          prompt: failed.prompt,
          state: { phase: 'tracked', record: { ...failed, status }, now: NOW },
        }).blocks,
      );
    expect(card('failed')).toContain(JOB_RETRY_ACTION);
    expect(card('active')).not.toContain(JOB_RETRY_ACTION);
    expect(card('completed')).not.toContain(JOB_RETRY_ACTION);
  });

  it('opens the job form with the same instruction, bound to the card’s channel; nothing starts on the click', async () => {
    const t = setup(failed);
    await t.run();
    expect(t.jobOfThread).toHaveBeenCalledWith(CHANNEL, '1700000000.000050');
    const view = (t.open.mock.calls[0] as unknown as [{ view: { private_metadata: string } }])[0].view;
    expect(JSON.stringify(view)).toContain('Document the 429 response');
    // The submission is Home's start path, which checks access and membership for whoever submits.
    expect(decodeRefs(view.private_metadata)).toEqual({ origin: 'home', channelId: CHANNEL });
    expect(t.respond).not.toHaveBeenCalled();
  });

  it('says so when the job is no longer known', async () => {
    const t = setup(undefined);
    await t.run();
    expect(t.open).not.toHaveBeenCalled();
    expect(JSON.stringify(t.respond.mock.calls)).toContain('no longer know this job');
  });
});
