import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import type { JobRecord } from '../../src/jobs/domain/job.js';
import { newJobRecord } from '../../src/jobs/domain/job.js';
import type { JobStore } from '../../src/jobs/ports.js';
import { CardRefresher } from '../../src/slack/card-refresher.js';
import { SlackDeliveryError, type SlackGateway } from '../../src/slack/slack-gateway.js';

const logger = createLogger({ level: 'silent', secrets: [] });

function record(status: string, updatedAt: number): JobRecord {
  const r = newJobRecord(
    {
      jobId: 'job_1',
      teamId: null,
      channelId: 'C1',
      threadTs: '1.000001',
      cardTs: '1.000001',
      requesterId: 'U1',
      prompt: 'tidy',
      origin: 'command',
      status,
      repository: null,
      ref: null,
      model: null,
      prLink: null,
    },
    1_000,
  );
  r.updatedAt = updatedAt;
  return r;
}

/** A gateway whose chat.update calls are resolved (or failed) by the test, one by one. */
function heldGateway() {
  const calls: Array<{ text: string; priority: string; settle: (error?: Error) => void }> = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const gateway = {
    update: (_channel: string, _ts: string, message: { text: string }, priority: string) =>
      new Promise<void>((resolve, reject) => {
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        calls.push({
          text: message.text,
          priority,
          settle: (error) => {
            inFlight -= 1;
            if (error) reject(error);
            else resolve();
          },
        });
      }),
  } as unknown as SlackGateway;
  return { gateway, calls, maxInFlight: () => maxInFlight };
}

function storeWith(stored: () => JobRecord | undefined): JobStore {
  return { getJob: async () => stored() } as unknown as JobStore;
}

const render = (r: JobRecord) => ({ text: r.status, blocks: [] });
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) await tick();
  expect(check()).toBe(true);
}

describe('CardRefresher', () => {
  it('returns at once, coalesces to the latest state, one update in flight, at refresh priority', async () => {
    const { gateway, calls, maxInFlight } = heldGateway();
    const refresher = new CardRefresher(
      gateway,
      storeWith(() => undefined),
      logger,
      render,
    );
    refresher.refresh(record('queued', 1), 1);
    await tick();
    refresher.refresh(record('active', 2), 2);
    refresher.refresh(record('running', 3), 3);
    refresher.refresh(record('completed', 4), 4);
    expect(calls.map((c) => c.text)).toEqual(['queued']);
    calls[0]!.settle();
    await tick();
    expect(calls.map((c) => c.text)).toEqual(['queued', 'completed']);
    calls[1]!.settle();
    await tick();
    expect(calls).toHaveLength(2);
    expect(maxInFlight()).toBe(1);
    expect(calls.every((c) => c.priority === 'refresh')).toBe(true);
    expect(refresher.backlog).toBe(0);
  });

  it('retries a failed refresh until the last state lands', async () => {
    const { gateway, calls } = heldGateway();
    const refresher = new CardRefresher(
      gateway,
      storeWith(() => undefined),
      logger,
      render,
      {
        retryBaseMs: 1,
        retryMaxMs: 2,
        random: () => 0.5,
      },
    );
    refresher.refresh(record('completed', 1), 1);
    for (let i = 0; i < 6; i++) {
      await until(() => calls.length > i);
      calls[i]!.settle(new SlackDeliveryError('ratelimited', 'Slack call failed: ratelimited'));
    }
    await until(() => calls.length > 6);
    calls[6]!.settle();
    await tick();
    expect(calls.map((c) => c.text)).toEqual(Array(7).fill('completed'));
    expect(refresher.backlog).toBe(0);
  });

  it('stops on a permanent error (the card is gone)', async () => {
    const { gateway, calls } = heldGateway();
    const refresher = new CardRefresher(
      gateway,
      storeWith(() => undefined),
      logger,
      render,
      {
        retryBaseMs: 1,
      },
    );
    refresher.refresh(record('completed', 1), 1);
    await tick();
    calls[0]!.settle(new SlackDeliveryError('message_not_found', 'Slack call failed: message_not_found'));
    await tick();
    await tick();
    expect(calls).toHaveLength(1);
    expect(refresher.backlog).toBe(0);
  });

  it('sends what another replica stored after its own state, so the card ends on the newest', async () => {
    const { gateway, calls } = heldGateway();
    let stored: JobRecord | undefined;
    const refresher = new CardRefresher(
      gateway,
      storeWith(() => stored),
      logger,
      render,
    );
    refresher.refresh(record('active', 1), 1);
    await tick();
    // Meanwhile another replica polled, stored the terminal state and refreshed the card itself first.
    stored = record('completed', 5);
    calls[0]!.settle();
    await tick();
    expect(calls.map((c) => c.text)).toEqual(['active', 'completed']);
    calls[1]!.settle();
    await tick();
    expect(calls).toHaveLength(2);
  });
});
