import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/common/clock.js';
import { createLogger } from '../../../src/common/logger.js';
import { Deliveries } from '../../../src/delivery/deliveries.js';
import { DeliveryAttemptError, type DeliverySender } from '../../../src/delivery/ports.js';
import { SlackJobNotifier } from '../../../src/slack/job-notifier.js';
import { SlackGateway, type WebClient } from '../../../src/slack/slack-gateway.js';
import { MemoryDeliveryStore } from '../../../src/state/memory/memory-delivery-store.js';

const logger = createLogger({ level: 'silent', secrets: [] });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a starting card Slack confirms only after the job start gave up on it (issue 35, D16)', () => {
  it('leaves "Starting…" for "Not started" (the person was told the job did not start)', async () => {
    // Slack stores the card but its answer is lost; the look-up after the settle time finds it, after
    // the job start stopped waiting.
    const cards: Array<{ call: string; ts: string; text: string }> = [];
    const sender: DeliverySender = {
      async send(_key, _priority, target, lease) {
        const delivery = await lease();
        if (!delivery) return { sent: false as const };
        const text = String((delivery.payload as { text?: string }).text);
        if (delivery.target.kind === 'update') {
          cards.push({ call: 'update', ts: delivery.target.ts, text });
          return { sent: true as const, delivery, ts: undefined };
        }
        expect(target.kind).toBe('post');
        cards.push({ call: 'post', ts: '7.000100', text });
        throw new DeliveryAttemptError({ kind: 'unknown', code: 'request_failed', inFlight: true });
      },
      lookup: async () => cards.find((c) => c.call === 'post')?.ts,
      removeDuplicates: async () => 0,
    };
    const store = new MemoryDeliveryStore();
    const outbox = new Deliveries({ store, sender, logger, settleMs: 150, retryBaseMs: 1 });
    const gateway = new SlackGateway({} as WebClient, { logger });
    const notifier = new SlackJobNotifier(gateway, outbox, systemClock, logger, { startingCardWaitMs: 50 });
    const posting = notifier.postStartingCard({
      channelId: 'C1',
      threadTs: '1.1',
      requesterId: 'U1',
      prompt: 'fix the docs',
      mayJoin: false,
    } as Parameters<SlackJobNotifier['postStartingCard']>[0]);
    await expect(posting).rejects.toMatchObject({ code: 'card_not_confirmed' });
    // The reconciler, as every replica runs it.
    for (let i = 0; i < 40 && cards.at(-1)?.call !== 'update'; i++) {
      await outbox.reconcile();
      await sleep(25);
    }
    await outbox.idle();
    expect(cards.filter((c) => c.call === 'post')).toHaveLength(1);
    expect(cards.at(-1)).toMatchObject({ call: 'update', ts: '7.000100' });
    expect(cards.at(-1)?.text).toMatch(/Not started/);
  });
});
