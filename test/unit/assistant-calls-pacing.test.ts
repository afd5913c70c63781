import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { AssistantCalls } from '../../src/slack/assistant-calls.js';
import { SlackGateway } from '../../src/slack/slack-gateway.js';

const logger = createLogger({ level: 'silent', secrets: [] });

/** Just enough of a WebClient: records when each new message (post or stream start) reached "Slack". */
function stubClient(sent: Array<{ method: string; at: number }>) {
  return {
    chat: {
      postMessage: async () => {
        sent.push({ method: 'chat.postMessage', at: Date.now() });
        return { ok: true, ts: `${sent.length}.000000` };
      },
    },
    chatStream: () => {
      const streamer = {
        ts: undefined as string | undefined,
        append: async () => {
          sent.push({ method: 'chat.startStream', at: Date.now() });
          streamer.ts = `${sent.length}.000000`;
        },
      };
      return streamer;
    },
  } as never;
}

describe('assistant calls are paced like other posts', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("starts a streamed message in the channel's posting pace, behind a post to the same channel", async () => {
    const sent: Array<{ method: string; at: number }> = [];
    const gateway = new SlackGateway(stubClient(sent), {
      logger,
      channelPostIntervalMs: 1000,
      channelPostBurst: 1,
    });
    const calls = new AssistantCalls(gateway, {
      owe: async () => undefined,
      deliver: async () => ({ status: 'pending' as const }),
      recorded: async () => false,
    });
    const t0 = Date.now();
    const post = gateway.post({ channel: 'D1', message: { text: 'hello', blocks: [] } });
    const stream = calls.startStream({ channelId: 'D1', threadTs: '1.000001', teamId: 'T1', userId: 'U1' }, [
      { id: 'created', title: 'Creating the agent job', status: 'in_progress' },
    ]);
    await vi.advanceTimersByTimeAsync(3000);
    await Promise.all([post, stream]);
    expect(sent.map((s) => s.method)).toEqual(['chat.postMessage', 'chat.startStream']);
    expect(sent[1]!.at - t0).toBeGreaterThanOrEqual(1000);
    await gateway.close();
  });
});
