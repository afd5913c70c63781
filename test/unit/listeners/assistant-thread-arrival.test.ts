import { describe, expect, it } from 'vitest';
import type { AssistantThread } from '../../../src/jobs/assistant-thread.js';
import type { InboundMessage } from '../../../src/jobs/conversation-service.js';
import {
  THREAD_WAIT_STEPS_MS,
  threadOfMessage,
} from '../../../src/slack/listeners/assistant/thread-arrival.js';

const THREAD: AssistantThread = { channelId: 'D0ALICE', threadTs: '1700000000.000100', userId: 'U0ALICE' };

function message(ts: string, fields: Partial<InboundMessage> = {}): InboundMessage & { threadTs: string } {
  return {
    kind: 'message',
    teamId: 'T0',
    channelId: 'D0ALICE',
    channelType: 'im',
    userId: 'U0ALICE',
    ts,
    threadTs: THREAD.threadTs,
    text: 'Document it',
    ...fields,
  } as InboundMessage & { threadTs: string };
}

/** A store whose thread is recorded after `recordedAfterReads` reads, and the pauses taken. */
function world(recordedAfterReads: number, jobThread = false) {
  let reads = 0;
  const pauses: number[] = [];
  const deps = {
    assistant: {
      threads: {
        get: async () => (++reads > recordedAfterReads ? THREAD : undefined),
        save: async () => {},
      },
    },
    jobs: { jobOfThread: async () => (jobThread ? ({ jobId: 'j1' } as never) : undefined) },
  } as unknown as Parameters<typeof threadOfMessage>[0];
  const pause = async (ms: number) => {
    pauses.push(ms);
  };
  return { deps, pause, pauses, reads: () => reads };
}

describe('the assistant thread of a message', () => {
  it('waits for a young thread whose start is not recorded yet, re-reading the store', async () => {
    const w = world(3);
    expect(await threadOfMessage(w.deps, message('1700000001.000200'), w.pause)).toEqual(THREAD);
    expect(w.pauses).toEqual(THREAD_WAIT_STEPS_MS.slice(0, 3));
  });

  it('gives up after about 3 s: an ordinary DM thread', async () => {
    const w = world(Number.POSITIVE_INFINITY);
    expect(await threadOfMessage(w.deps, message('1700000001.000200'), w.pause)).toBeUndefined();
    expect(w.pauses.reduce((a, b) => a + b, 0)).toBe(3_000);
  });

  it('does not wait for an old thread, a job thread, a channel thread or a root message', async () => {
    for (const [w, m] of [
      [world(1), message('1700000061.000200')],
      [world(1, true), message('1700000001.000200')],
      [world(1), message('1700000001.000200', { channelType: 'channel' })],
      [world(1), message(THREAD.threadTs)],
    ] as const) {
      expect(await threadOfMessage(w.deps, m, w.pause)).toBeUndefined();
      expect(w.pauses).toEqual([]);
      expect(w.reads()).toBe(1);
    }
  });
});
