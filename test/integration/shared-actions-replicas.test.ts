import { afterEach, describe, expect, it } from 'vitest';
import type { VersionedRecords } from '../../src/common/versioned-records.js';
import { AlertFeed } from '../support/alert-feed.js';
import { appsOnRedis } from '../support/apps-on-redis.js';
import { FakeDocs } from '../support/fake-docs.js';
import { FakeSlack } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { blockActionsPayload, viewSubmissionPayload } from '../support/slack-interactions.js';
import type { TestApp } from '../support/test-app.js';

/*
 * Issue 46 §1: two people act on one shared alert at the same instant, on two replicas of one real Redis.
 * Replica A's save of Bob's mute is held until Alice's fix went through replica B from the same start:
 * A's write finds the state changed, starts again from it, and the alert ends up showing both lines.
 */

const CHANNEL = 'C0ALERTS';
const apps = appsOnRedis();
const fakes: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const fake of fakes.splice(0)) await fake.close();
});

type Element = { type: string; action_id?: string; value?: string; options?: Array<{ value: string }> };
type Shown = { ts: string; text: string; blocks?: unknown };

const elementsOf = (message: Shown) =>
  (message.blocks as Array<{ type: string; elements?: Element[] }>).find((b) => b.type === 'actions')!
    .elements!;

/** The next write of shared state through this wrapper waits for `release` (after saying it is held). */
function holdingNextWrite() {
  let armed = false;
  let held!: () => void;
  const isHeld = new Promise<void>((resolve) => {
    held = resolve;
  });
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const wrap = (records: VersionedRecords): VersionedRecords => ({
    read: (key) => records.read(key),
    async write(key, json, expected, ttlMs) {
      if (armed) {
        armed = false;
        held();
        await released;
      }
      return records.write(key, json, expected, ttlMs);
    },
  });
  const arm = () => {
    armed = true;
  };
  return { wrap, arm, isHeld, release };
}

function click(t: TestApp, message: Shown, element: Element, userId: string) {
  return t.interaction(
    blockActionsPayload({
      userId,
      triggerId: t.slack.surfaces.mintTriggerId(userId),
      action: {
        action_id: element.action_id!,
        ...(element.options ? { selected: element.options[0]!.value } : { value: element.value! }),
      },
      container: {
        type: 'message',
        ...{ channelId: CHANNEL, messageTs: message.ts, responseUrl: t.slack.responseUrl() },
        message: { text: message.text, blocks: message.blocks as unknown[] },
      },
    }),
  );
}

describe('two changes of one shared alert at once, on two replicas', () => {
  it("Bob's mute (held on replica A) and Alice's fix (replica B) both show on the alert", async () => {
    const slack = await FakeSlack.start();
    const docs = await FakeDocs.start();
    fakes.push(slack, docs);
    const env = {
      REDIS_URL: apps.redisUrl(),
      HEALTH_ALERT_INTERVAL_MS: '1000',
      ANALYTICS_HOURLY_BUDGET: '100000',
    };
    const hold = holdingNextWrite();
    const a = await apps.start({ env, slack, docs, agentOptions: { sharedMessageRecords: hold.wrap } });
    const b = await apps.start({ env, slack, docs });
    const feed = new AlertFeed(docs, undefined, 5);
    feed.installHistory(Date.now());
    feed.spike.searches = { 'webhook retries': 14 };
    feed.drawToday();
    expect(
      (await a.command({ command: '/docs-health', text: 'alerts on', channel_id: CHANNEL })).status,
    ).toBe(200);
    const alert = await waitFor(
      () => slack.messages.find((m) => m.channel === CHANNEL && m.text.startsWith('Docs-health alert')),
      { what: 'the alert', timeoutMs: 15_000 },
    );

    // Bob mutes through replica A: it reads the alert's state, and its save waits.
    hold.arm();
    const menu = elementsOf(alert).find((e) => e.type === 'overflow')!;
    expect((await click(a, alert, menu, 'U0BOB')).status).toBe(200);
    await hold.isHeld;

    // Meanwhile Alice fixes it through replica B, from the same state: her line is on the alert.
    const fix = elementsOf(alert).find((e) => e.type === 'button')!;
    expect((await click(b, alert, fix, 'U0ALICE')).status).toBe(200);
    const modal = await waitFor(() => [...slack.surfaces.modals.values()][0], { what: 'the fix form' });
    await b.interaction(
      viewSubmissionPayload({
        userId: 'U0ALICE',
        view: modal.view,
        values: { health_instruction: { instruction: { type: 'plain_text_input', value: 'Document it' } } },
      }),
    );
    const fixing = 'Fixing · started by <@U0ALICE>';
    await waitFor(
      () =>
        slack
          .callsOf('chat.update')
          .find((c) => c.args.ts === alert.ts && JSON.stringify(c.args.blocks).includes(fixing)),
      { what: "Alice's fix on the alert" },
    );

    // Bob's save goes on: it finds the state changed, starts again from it, and keeps Alice's line.
    hold.release();
    const muted = '🔕 Muted by <@U0BOB> until <!date^';
    const both = await waitFor(
      () =>
        slack
          .callsOf('chat.update')
          .find(
            (c) =>
              c.args.ts === alert.ts &&
              JSON.stringify(c.args.blocks).includes(fixing) &&
              JSON.stringify(c.args.blocks).includes(muted),
          ),
      { what: 'the alert with both lines', timeoutMs: 10_000 },
    );
    // Slack ends on that state: the latest update carries both.
    await waitFor(
      () =>
        JSON.stringify(slack.messages.find((m) => m.ts === alert.ts)!.blocks) ===
          JSON.stringify(both.args.blocks) || undefined,
      { what: 'the alert as last updated' },
    );
    const buttons = elementsOf(slack.messages.find((m) => m.ts === alert.ts)!).map((e) => e.type);
    expect(buttons).toEqual(['button', 'button']); // the mute menu went
  }, 60_000);
});
