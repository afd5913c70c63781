import { describe, expect, it, vi } from 'vitest';
import { newJobRecord } from '../../../src/jobs/domain/job.js';
import { jobCardMenu } from '../../../src/slack/listeners/actions/job-card-menu.js';
import { CHANNEL, recordingLogger } from './fakes.js';

const NOW = Date.parse('2026-11-21T10:00:00Z');

function job(jobId: string) {
  return newJobRecord(
    {
      jobId,
      teamId: 'T0TEAM',
      channelId: CHANNEL,
      threadTs: '1700000000.000050',
      cardTs: '1700000000.000050',
      requesterId: 'U0ALICE',
      prompt: 'Document the 429 response',
      origin: 'command',
      status: 'active',
      repository: null,
      ref: null,
      model: null,
      prLink: null,
    },
    NOW - 60_000,
  );
}

async function choose(record: ReturnType<typeof job> | undefined, value = 'copy_job_id', blockId?: string) {
  const respond = vi.fn(async (_message: { text: string }) => ({}));
  const ack = vi.fn(async () => {});
  const jobOfThread = vi.fn(async () => record);
  await jobCardMenu({ logger: recordingLogger().logger, jobs: { jobOfThread } as never })({
    ack,
    action: { selected_option: { value }, ...(blockId && { block_id: blockId }) },
    body: { container: { channel_id: CHANNEL, message_ts: '1700000000.000050' } },
    respond,
  } as never);
  return { ack, respond, jobOfThread, told: respond.mock.calls.map(([m]) => m.text).join('\n') };
}

describe("the card's ⋯ → Copy job ID", () => {
  it('acks, reads the id from the job store by the card, and answers privately with it in a code span', async () => {
    const t = await choose(job('job_7f3a9c'));
    expect(t.ack).toHaveBeenCalledOnce();
    expect(t.jobOfThread).toHaveBeenCalledWith(CHANNEL, '1700000000.000050');
    expect(t.respond).toHaveBeenCalledWith(
      expect.objectContaining({ response_type: 'ephemeral', replace_original: false }),
    );
    expect(t.told).toContain('`job_7f3a9c`');
  });

  it('never echoes an id that is not a plain id or that holds a credential', async () => {
    for (const id of ['job_1`<!channel>`', 'xoxb-1234567890-1234567890-abcdefghijklmnop']) {
      const t = await choose(job(id));
      expect(t.ack).toHaveBeenCalledOnce();
      expect(t.told).not.toContain(id);
      expect(t.told).toContain('not in a form I can show safely');
    }
  });

  it("a card drawn for another job than its thread's now does not get that job's id", async () => {
    const t = await choose(job('job_later'), 'copy_job_id', 'job:job_earlier');
    expect(t.told).not.toContain('job_later');
    expect(t.told).toContain('no longer the one I follow');
    expect((await choose(job('job_same'), 'copy_job_id', 'job:job_same')).told).toContain('`job_same`');
  });

  it('another option, or no job behind the card: acked, and no id', async () => {
    const other = await choose(job('job_7f3a9c'), 'something_else');
    expect(other.ack).toHaveBeenCalledOnce();
    expect(other.respond).not.toHaveBeenCalled();
    const gone = await choose(undefined);
    expect(gone.told).toContain('I no longer know this job');
  });
});
