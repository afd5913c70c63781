import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/common/logger.js';
import { type JobRecord, newJobRecord } from '../../../src/jobs/domain/job.js';
import {
  handleStop,
  type SessionStoppedDeps,
  stopOfEvent,
} from '../../../src/slack/listeners/assistant/session-stopped.js';

const logger = createLogger({ level: 'silent', secrets: [] });
const event = {
  type: 'agent_session_stopped',
  channel: 'D0ALICEAPP',
  thread_ts: '1700000000.000100',
  user: 'U0ALICE',
  event_ts: '1700000100.000200',
  streaming_message_ts: ['1700000001.000300'],
};

function record(overrides: Partial<JobRecord> = {}): JobRecord {
  return {
    ...newJobRecord(
      {
        jobId: 'job_1',
        teamId: 'T0TEAM',
        channelId: 'D0ALICEAPP',
        threadTs: '1700000000.000100',
        cardTs: '1700000001.000300',
        requesterId: 'U0ALICE',
        prompt: 'x',
        origin: 'assistant',
        status: 'active',
        repository: null,
        ref: null,
        model: null,
        prLink: null,
      },
      0,
    ),
    ...overrides,
  };
}

function deps(job: JobRecord | undefined, options: { failStop?: boolean; claimed?: boolean } = {}) {
  const seen: string[] = [];
  const d: SessionStoppedDeps = {
    logger,
    afterAck: () => undefined,
    access: { check: () => ({ ok: false, reason: 'user' }), isAdmin: () => false, checkTeam: () => true },
    jobs: {
      jobOfThread: async () => job,
      stopFollowing: async () => {
        if (options.failStop) throw new Error('state_unavailable');
        return { ok: true, record: { ...job!, watching: false, watchEnded: 'stopped' } };
      },
      claimOnce: async () => options.claimed !== true,
      confirmOnce: async () => void seen.push('confirmed'),
      releaseOnce: async () => void seen.push('released'),
    },
    sessions: {
      job: async () => job,
      stopping: async () => {
        seen.push('stopping');
        return 'open';
      },
      stopped: async (_r: JobRecord, streams: string[], before: string) =>
        void seen.push(`stopped:${streams.join(',')}:${before}`),
      idle: () => void seen.push('idle'),
      following: async () => undefined,
      reply: async (key: string) => void seen.push(`reply:${key.split(':')[0]}`),
      replace: async () => undefined,
    },
  } as unknown as SessionStoppedDeps;
  return { d, seen };
}

describe('agent_session_stopped', () => {
  it('reads only well-formed ids from the event (text from outside)', () => {
    expect(stopOfEvent(event)).toEqual({
      channelId: 'D0ALICEAPP',
      threadTs: '1700000000.000100',
      userId: 'U0ALICE',
      eventTs: '1700000100.000200',
      streams: ['1700000001.000300'],
    });
    expect(stopOfEvent({ ...event, channel: '<!channel>' })).toBeUndefined();
    expect(stopOfEvent({ ...event, user: 42 })).toBeUndefined();
    expect(stopOfEvent({ ...event, streaming_message_ts: ['x', 3, '1.2'] })?.streams).toEqual(['1.2']);
    expect(stopOfEvent(null)).toBeUndefined();
  });

  it('stops a followed job of the requester: stream marked first, then the record, then the line', async () => {
    const { d, seen } = deps(record());
    await handleStop(d, stopOfEvent(event)!);
    expect(seen).toEqual(['stopping', 'stopped:1700000001.000300:open', 'confirmed']);
  });

  it('says there is nothing to stop when the run already ended, and sets the session idle', async () => {
    const { d, seen } = deps(record({ watching: false }));
    await handleStop(d, stopOfEvent(event)!);
    expect(seen).toEqual(['idle', 'reply:agent-stop-none', 'confirmed']);
  });

  it('handles a redelivered event once', async () => {
    const { d, seen } = deps(record(), { claimed: true });
    await handleStop(d, stopOfEvent(event)!);
    expect(seen).toEqual([]);
  });

  it('never leaves the session processing: a failed stop says so, and may be pressed again', async () => {
    const { d, seen } = deps(record(), { failStop: true });
    await handleStop(d, stopOfEvent(event)!);
    expect(seen).toEqual(['stopping', 'released', 'idle', 'reply:agent-stop-failed']);
  });

  it('ignores a Stop by someone who is neither the requester, an admin nor allowed', async () => {
    const { d, seen } = deps(record({ requesterId: 'U0BOB' }));
    await handleStop(d, stopOfEvent(event)!);
    expect(seen).toEqual(['idle', 'confirmed']);
  });
});
