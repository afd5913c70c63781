import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { SlackGateway } from '../../src/slack/slack-gateway.js';

const logger = createLogger({ level: 'silent', secrets: [] });

/** Just enough of a WebClient: records when each post reached "Slack". */
function stubClient(posted: Array<{ channel: string; at: number }>) {
  return {
    chat: {
      postMessage: async (args: { channel: string }) => {
        posted.push({ channel: args.channel, at: Date.now() });
        return { ok: true, ts: `${posted.length}.000000` };
      },
    },
  } as never;
}

const message = { text: 'hello', blocks: [] };

describe('SlackGateway per-channel pacing', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('lets a short burst through, then one post per interval, per channel', async () => {
    const posted: Array<{ channel: string; at: number }> = [];
    const gateway = new SlackGateway(stubClient(posted), {
      logger,
      channelPostIntervalMs: 1000,
      channelPostBurst: 2,
    });
    const t0 = Date.now();
    const posts = [1, 2, 3, 4].map(() => gateway.post({ channel: 'C1', message }));
    const other = gateway.post({ channel: 'C2', message });
    await vi.advanceTimersByTimeAsync(5000);
    await Promise.all([...posts, other]);
    const offsets = (channel: string) => posted.filter((p) => p.channel === channel).map((p) => p.at - t0);
    const c1 = offsets('C1');
    expect(c1).toHaveLength(4);
    expect(c1[0]).toBeLessThan(100);
    expect(c1[1]).toBeLessThan(100);
    expect(c1[2]).toBeGreaterThanOrEqual(1000);
    expect(c1[3]).toBeGreaterThanOrEqual(2000);
    // Another channel is not held up by the first one's queue.
    expect(offsets('C2')[0]).toBeLessThan(100);
    await gateway.close();
  });

  it('refuses a post past the bound of the channel queue with slack_queue_full, without retrying it', async () => {
    const posted: Array<{ channel: string; at: number }> = [];
    const gateway = new SlackGateway(stubClient(posted), {
      logger,
      channelPostIntervalMs: 1000,
      channelPostBurst: 1,
      maxQueue: 2,
    });
    const accepted = [1, 2, 3].map(() => gateway.post({ channel: 'C1', message }));
    const refused = gateway.post({ channel: 'C1', message });
    await expect(refused).rejects.toMatchObject({ code: 'slack_queue_full' });
    await vi.advanceTimersByTimeAsync(5000);
    await Promise.all(accepted);
    expect(posted).toHaveLength(3);
    await gateway.close();
  });

  it('does not pace when the interval is 0', async () => {
    const posted: Array<{ channel: string; at: number }> = [];
    const gateway = new SlackGateway(stubClient(posted), { logger, channelPostIntervalMs: 0 });
    const t0 = Date.now();
    await Promise.all([1, 2, 3, 4, 5, 6].map(() => gateway.post({ channel: 'C1', message })));
    expect(posted.map((p) => p.at - t0).every((ms) => ms < 100)).toBe(true);
    expect(posted).toHaveLength(6);
  });
});
