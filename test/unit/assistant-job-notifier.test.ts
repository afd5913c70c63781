import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { type JobRecord, newJobRecord } from '../../src/jobs/domain/job.js';
import type { JobNotifier, StartingCard } from '../../src/jobs/ports.js';
import type { AssistantCalls, StreamStep } from '../../src/slack/assistant-calls.js';
import { AssistantJobNotifier } from '../../src/slack/assistant-job-notifier.js';
import { SlackDeliveryError } from '../../src/slack/slack-errors.js';
import { fakeJobStore } from './jobs/fake-job-store.js';

const logger = createLogger({ level: 'silent', secrets: [] });
const clock = { now: () => 1_000_000 };

function record(overrides: Partial<JobRecord> = {}): JobRecord {
  return {
    ...newJobRecord(
      {
        jobId: 'job_1',
        teamId: 'T0TEAM',
        channelId: 'D0ALICE',
        threadTs: '100.000001',
        cardTs: '100.000002',
        requesterId: 'U0ALICE',
        prompt: 'Document the 429 response',
        origin: 'assistant',
        status: 'active',
        repository: null,
        ref: null,
        model: null,
        prLink: null,
      } as Parameters<typeof newJobRecord>[0],
      0,
    ),
    ...overrides,
  };
}

/** Every call made, in order; `failStream` makes the stream calls fail with that Slack code. */
function fakes(options: { failStream?: string; failStart?: boolean } = {}) {
  const changed: string[] = [];
  const calls: Array<{ kind: string; args: unknown[] }> = [];
  const fail = (kind: string) => {
    calls.push({ kind, args: [] });
    throw new SlackDeliveryError(options.failStream ?? 'x', 'failed');
  };
  const assistant = {
    setStatus: async (...args: unknown[]) => void calls.push({ kind: 'status', args }),
    startStream: async (...args: unknown[]) => {
      if (options.failStart) throw new SlackDeliveryError('feature_not_enabled', 'refused');
      calls.push({ kind: 'start', args });
      return '100.000009';
    },
    appendStream: async (_c: string, _ts: string, steps: StreamStep[]) =>
      options.failStream ? fail('append') : void calls.push({ kind: 'append', args: [steps] }),
    stopStream: async (_c: string, _ts: string, steps: StreamStep[]) =>
      options.failStream ? fail('stop') : void calls.push({ kind: 'stop', args: [steps] }),
  } as unknown as AssistantCalls;
  const cards: JobNotifier = {
    postStartingCard: async () => {
      calls.push({ kind: 'card', args: [] });
      return '100.000003';
    },
    updateCard: async () => void calls.push({ kind: 'card-update', args: [] }),
    markCardFailed: async () => void calls.push({ kind: 'card-failed', args: [] }),
    postTerminalReply: async () => {
      calls.push({ kind: 'reply', args: [] });
    },
    postNotice: async () => void calls.push({ kind: 'notice', args: [] }),
  };
  const records = new Map<string, JobRecord>();
  const marks = new Set<string>();
  const store = {
    ...fakeJobStore(records),
    mark: async (key: string) => void marks.add(key),
    isMarked: async (key: string) => marks.has(key),
  };
  const timers: Array<() => void> = [];
  const cleared: unknown[] = [];
  const notifier = new AssistantJobNotifier(cards, assistant, store, clock, logger, {
    statusRefreshMs: 90_000,
    setInterval: ((callback: () => void) => {
      timers.push(callback);
      return timers.length;
    }) as unknown as typeof setInterval,
    clearInterval: ((id: unknown) => void cleared.push(id)) as unknown as typeof clearInterval,
    onJobChanged: (r) => void changed.push(r.jobId),
  });
  return { notifier, calls, records, timers, cleared, changed };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));
const card: StartingCard = {
  channelId: 'D0ALICE',
  threadTs: '100.000001',
  requesterId: 'U0ALICE',
  prompt: 'Document the 429 response',
  origin: 'assistant',
  teamId: 'T0TEAM',
};

describe('AssistantJobNotifier', () => {
  it('keeps the status line while the job is watched (before Slack clears it), and stops after', async () => {
    const { notifier, calls, records, timers, cleared } = fakes();
    const running = record();
    records.set(running.jobId, running);
    await notifier.updateCard(running, 0);
    await notifier.updateCard(running, 1);
    expect(timers).toHaveLength(1);
    const statuses = () => calls.filter((c) => c.kind === 'status').map((c) => c.args[2]);
    expect(statuses()).toEqual(['is waiting for the agent…', 'is waiting for the agent…']);

    timers[0]!();
    await settle();
    expect(statuses()).toHaveLength(3);
    expect(statuses().at(-1)).toBe('is waiting for the agent…');

    // Another replica finished the job: the next tick stops refreshing instead of setting a stale status.
    records.set(running.jobId, { ...running, watching: false });
    timers[0]!();
    await settle();
    expect(statuses()).toHaveLength(3);
    expect(cleared).toEqual([1]);
  });

  it('posts the terminal reply, stops the stream with the PR step and clears the status', async () => {
    const { notifier, calls } = fakes();
    const ts = await notifier.postStartingCard(card);
    expect(ts).toBe('100.000009');
    const done = record({ cardTs: ts, watching: false, status: 'completed' });
    await notifier.postTerminalReply(done, { kind: 'pull_request', prLink: 'https://pr/1' });
    await settle();
    const kinds = calls.map((c) => c.kind);
    expect(kinds).toEqual(['start', 'status', 'reply', 'stop', 'status']);
    const steps = calls.find((c) => c.kind === 'stop')!.args[0] as StreamStep[];
    expect(steps.find((s) => s.id === 'pr')).toMatchObject({ status: 'complete', output: 'https://pr/1' });
    expect(calls.at(-1)!.args[2]).toBe('');
  });

  it('tells App Home of a change shown in the stream, as a card refresh would', async () => {
    const { notifier, calls, changed } = fakes();
    const ts = await notifier.postStartingCard(card);
    await notifier.updateCard(record({ cardTs: ts }), 0);
    expect(changed).toEqual(['job_1']);
    expect(calls.map((c) => c.kind)).toEqual(['start', 'status', 'append']);
  });

  it('falls back to the card when Slack refuses the stream, and keeps using the card', async () => {
    const { notifier, calls } = fakes({ failStart: true });
    const ts = await notifier.postStartingCard(card);
    expect(ts).toBe('100.000003');
    await notifier.updateCard(record({ cardTs: ts }), 0);
    await settle();
    expect(calls.map((c) => c.kind)).toEqual(['card', 'status', 'card-update']);
  });

  it('carries on when a stream is over (Slack ends streams after a few minutes): no throw, reply posted', async () => {
    const { notifier, calls } = fakes({ failStream: 'message_not_in_streaming_state' });
    const ts = await notifier.postStartingCard(card);
    await expect(notifier.updateCard(record({ cardTs: ts }), 0)).resolves.toBeUndefined();
    await expect(
      notifier.postTerminalReply(record({ cardTs: ts, watching: false }), { kind: 'failed' }),
    ).resolves.toBeUndefined();
    expect(calls.map((c) => c.kind)).toContain('reply');
  });

  it('leaves every other job to the card notifier, with no status line', async () => {
    const { notifier, calls } = fakes();
    await notifier.postStartingCard({ ...card, origin: 'dm' });
    await notifier.updateCard(record({ origin: 'dm' }), 0);
    await notifier.postTerminalReply(record({ origin: 'dm' }), { kind: 'failed' });
    expect(calls.map((c) => c.kind)).toEqual(['card', 'card-update', 'reply']);
  });
});
