import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { type JobRecord, newJobRecord } from '../../src/jobs/domain/job.js';
import type { JobNotifier, StartingCard } from '../../src/jobs/ports.js';
import type { AssistantCalls, StreamStep } from '../../src/slack/assistant-calls.js';
import { AssistantJobNotifier } from '../../src/slack/assistant-job-notifier.js';
import type { SlackMessage } from '../../src/slack/messages/types.js';
import { SlackDeliveryError } from '../../src/slack/slack-errors.js';
import { fakeJobStore } from './jobs/fake-job-store.js';

const logger = createLogger({ level: 'silent', secrets: [] });
/** The stream starts at 1,000 s (its ts); the clock starts there too and tests move it. */
const STREAM_TS = '1000.000009';
const HANDOVER_MS = 240_000;

function record(overrides: Partial<JobRecord> = {}): JobRecord {
  return {
    ...newJobRecord(
      {
        jobId: 'job_1',
        teamId: 'T0TEAM',
        channelId: 'D0ALICE',
        threadTs: '999.000001',
        cardTs: STREAM_TS,
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

interface Call {
  kind: string;
  args: unknown[];
}

/** Every call made, in order. */
function fakes(options: { failStart?: boolean } = {}) {
  const changed: string[] = [];
  const calls: Call[] = [];
  const push =
    (kind: string) =>
    async (...args: unknown[]) =>
      void calls.push({ kind, args });
  const assistant = {
    setStatus: push('status'),
    setSessionStatus: push('session'),
    startStream: async (...args: unknown[]) => {
      if (options.failStart) throw new SlackDeliveryError('feature_not_enabled', 'refused');
      calls.push({ kind: 'start', args });
      return STREAM_TS;
    },
    appendStream: push('append'),
    stopStream: push('stop'),
    finishStream: push('finish'),
    reply: push('reply-owed'),
  } as unknown as AssistantCalls;
  const cards: JobNotifier = {
    postStartingCard: async () => {
      calls.push({ kind: 'card', args: [] });
      return '1000.000003';
    },
    updateCard: push('card-update'),
    markCardFailed: push('card-failed'),
    postTerminalReply: push('reply'),
    postNotice: push('notice'),
  };
  const records = new Map<string, JobRecord>();
  const marks = new Set<string>();
  const store = {
    ...fakeJobStore(records),
    mark: async (key: string) => void marks.add(key),
    isMarked: async (key: string) => marks.has(key),
  };
  const timers: Array<() => void> = [];
  const timeouts: Array<{ callback: () => void; ms: number }> = [];
  const cleared: unknown[] = [];
  const clock = { ms: 1_000_000, now: () => clock.ms };
  const notifier = new AssistantJobNotifier(cards, assistant, store, clock, logger, {
    statusRefreshMs: 90_000,
    streamHandoverMs: HANDOVER_MS,
    setInterval: ((callback: () => void) => {
      timers.push(callback);
      return timers.length;
    }) as unknown as typeof setInterval,
    clearInterval: ((id: unknown) => void cleared.push(id)) as unknown as typeof clearInterval,
    setTimeout: ((callback: () => void, ms: number) => {
      timeouts.push({ callback, ms });
      return 100 + timeouts.length;
    }) as unknown as typeof setTimeout,
    clearTimeout: ((id: unknown) => void cleared.push(id)) as unknown as typeof clearTimeout,
    onJobChanged: (r) => void changed.push(r.jobId),
  });
  const kinds = () => calls.map((c) => c.kind);
  const of = (kind: string) => calls.filter((c) => c.kind === kind);
  return { notifier, calls, kinds, of, records, timers, timeouts, cleared, changed, clock };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));
const card: StartingCard = {
  channelId: 'D0ALICE',
  threadTs: '999.000001',
  requesterId: 'U0ALICE',
  prompt: 'Document the 429 response',
  origin: 'assistant',
  teamId: 'T0TEAM',
};
const PR = 'https://github.com/acme/docs/pull/1';

describe('AssistantJobNotifier', () => {
  it('keeps the status line while the job is watched (before Slack clears it), and stops after', async () => {
    const { notifier, of, records, timers, cleared } = fakes();
    const running = record();
    records.set(running.jobId, running);
    await notifier.updateCard(running, 0);
    await notifier.updateCard(running, 1);
    expect(timers).toHaveLength(1);
    const statuses = () => of('status').map((c) => c.args[2]);
    expect(statuses()).toEqual(['is waiting for the agent…', 'is waiting for the agent…']);
    // The session is `processing` while the job runs: Slack shows its Stop button.
    expect(of('session').map((c) => c.args[2])).toEqual(['processing', 'processing']);

    timers[0]!();
    await settle();
    expect(statuses()).toHaveLength(3);

    // Another replica finished the job: the next tick stops refreshing instead of setting a stale status.
    records.set(running.jobId, { ...running, watching: false });
    timers[0]!();
    await settle();
    expect(statuses()).toHaveLength(3);
    expect(cleared).toContain(1);
  });

  it('ends the open stream with the result and its feedback buttons: one message, no separate reply', async () => {
    const { notifier, kinds, of, clock } = fakes();
    const ts = await notifier.postStartingCard(card);
    clock.ms += 60_000;
    const done = record({ watching: false, status: 'completed', prLink: PR });
    await notifier.postTerminalReply(done, { kind: 'pull_request', prLink: PR });
    await settle();
    expect(kinds()).not.toContain('reply');
    const finish = of('finish')[0]!.args[0] as {
      key: string;
      ts: string;
      steps: StreamStep[];
      result: SlackMessage;
    };
    expect(finish.key).toBe('terminal:job_1:1');
    expect(finish.ts).toBe(ts);
    expect(JSON.stringify(finish.result.blocks)).toContain(PR);
    expect(JSON.stringify(finish.result.blocks)).toContain('feedback_buttons');
    // The link is in the result, once: the steps say what happened without repeating it.
    expect(JSON.stringify(finish.steps)).not.toContain(PR);
    expect(of('session').at(-1)!.args[2]).toBe('active');
    expect(of('status').at(-1)!.args[2]).toBe('');
  });

  it('hands the stream over before Slack closes it, then carries on in the status line and replies', async () => {
    const { notifier, kinds, of, records, timeouts, clock } = fakes();
    await notifier.postStartingCard(card);
    const running = record({ ref: 'docs/rate-limits' });
    records.set(running.jobId, running);
    await notifier.updateCard(running, clock.now());
    expect(timeouts.map((t) => Math.floor(t.ms))).toEqual([HANDOVER_MS]);
    clock.ms += HANDOVER_MS;
    timeouts[0]!.callback();
    await settle();
    await settle();
    const stop = of('stop')[0]!.args[2] as StreamStep[];
    expect(stop.at(-1)).toMatchObject({ id: 'handover', title: 'Still working…' });
    expect(of('status').at(-1)!.args[2]).toBe('is still working: the agent is editing the docs…');

    // Later progress goes to the status line only; the result is a reply (the stream is over).
    const before = kinds().length;
    await notifier.updateCard({ ...running, status: 'active' }, clock.now());
    expect(kinds().slice(before)).not.toContain('append');
    await notifier.postTerminalReply(record({ watching: false }), { kind: 'pull_request', prLink: PR });
    expect(kinds()).toContain('reply');
    expect(kinds()).not.toContain('finish');
  });

  it('hands over on a poll that comes after the handover time, without any timer', async () => {
    const { notifier, of, clock } = fakes();
    await notifier.postStartingCard(card);
    clock.ms += HANDOVER_MS + 1;
    await notifier.updateCard(record(), clock.now());
    expect(of('append')).toHaveLength(0);
    expect((of('stop')[0]!.args[2] as StreamStep[]).at(-1)?.id).toBe('handover');
  });

  it('on Stop: the honest line ends the stream when it is still open, else it is a reply', async () => {
    const open = fakes();
    await open.notifier.postStartingCard(card);
    const running = record();
    const before = await open.notifier.stopping(running);
    expect(before).toBe('open');
    await open.notifier.stopped({ ...running, watching: false, watchEnded: 'stopped' }, [], before);
    const finish = open.of('finish')[0]!.args[0] as { key: string; result: SlackMessage };
    expect(finish.key).toBe('agent-stop:job_1:1');
    expect(JSON.stringify(finish.result)).toContain('may still finish and open a pull request');
    expect(JSON.stringify(finish.result)).toContain('Keep following');
    expect(open.of('session').at(-1)!.args[2]).toBe('active');

    // Slack stopped the stream itself: the line is a reply (an append would be refused).
    const listed = fakes();
    await listed.notifier.postStartingCard(card);
    const phase = await listed.notifier.stopping(running);
    await listed.notifier.stopped({ ...running, watching: false }, [STREAM_TS], phase);
    expect(listed.kinds()).toContain('reply-owed');
    expect(listed.kinds()).not.toContain('finish');
    // From the Stop on, no replica appends to that stream.
    await listed.notifier.updateCard({ ...running, watching: true }, 0);
    expect(listed.kinds()).not.toContain('append');
  });

  it('tells App Home of a change shown in the stream, as a card refresh would', async () => {
    const { notifier, kinds, changed } = fakes();
    await notifier.postStartingCard(card);
    await notifier.updateCard(record(), 0);
    expect(changed).toEqual(['job_1']);
    expect(kinds()).toEqual(['session', 'start', 'session', 'status', 'append']);
  });

  it('falls back to the card when Slack refuses the stream, and keeps using the card', async () => {
    const { notifier, kinds } = fakes({ failStart: true });
    const ts = await notifier.postStartingCard(card);
    expect(ts).toBe('1000.000003');
    await notifier.updateCard(record({ cardTs: ts }), 0);
    await notifier.postTerminalReply(record({ cardTs: ts, watching: false }), { kind: 'failed' });
    await settle();
    expect(kinds().filter((k) => k !== 'session' && k !== 'status')).toEqual([
      'card',
      'card-update',
      'reply',
    ]);
  });

  it('leaves every other job to the card notifier, with no status line', async () => {
    const { notifier, kinds } = fakes();
    await notifier.postStartingCard({ ...card, origin: 'dm' });
    await notifier.updateCard(record({ origin: 'dm' }), 0);
    await notifier.postTerminalReply(record({ origin: 'dm' }), { kind: 'failed' });
    expect(kinds()).toEqual(['card', 'card-update', 'reply']);
  });
});
