import { afterEach, describe, expect, it } from 'vitest';
import { makeViewRows } from '../support/fake-docs.js';
import { waitFor } from '../support/http.js';
import { ManualTimers } from '../support/manual-timers.js';
import { blockActionsPayload } from '../support/slack-interactions.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/*
 * Issue 46 §1: "Stop these posts" under a weekly post says on the post, for everyone, who stopped them and
 * when, with Undo; Undo (the same permission as Stop) puts the schedule back and the post says who
 * restarted them, with Stop again. The real app over signed HTTP, memory mode on a manual clock.
 */

// Monday 2025-03-24, 08:59 in Berlin (CET, +01:00).
const BEFORE = Date.parse('2025-03-24T07:59:00Z');
const OCCURRENCE = Date.parse('2025-03-24T08:00:00Z');
const CHANNEL = 'C0DOCS';
const apps: TestApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.stop();
});

type Block = { type: string; block_id?: string; accessory?: { action_id: string; value: string } };

async function answer(t: TestApp, text: string): Promise<string> {
  const before = t.slack.responses.length;
  expect((await t.command({ command: '/docs-views', text, channel_id: CHANNEL })).status).toBe(200);
  return String((await waitFor(() => t.slack.responses[before], { what: `/docs-views ${text}` })).body.text);
}

describe('Stop and Undo on a weekly post', () => {
  it('the post says who stopped it and when, with Undo; Undo restarts the posts and says who did', async () => {
    const timers = new ManualTimers(BEFORE);
    const t = await startTestApp({
      env: { ALLOWED_USER_IDS: 'U0ALICE,U0BOB' },
      agentOptions: { clock: { now: timers.now }, schedulerTimers: timers },
    });
    apps.push(t);
    t.docs.viewsByRange.set('2025-03-17T00:00:00+01:00..2025-03-24T00:00:00+01:00', makeViewRows(30));
    await answer(t, 'schedule monday 09:00 Europe/Berlin');
    await timers.advanceTo(OCCURRENCE);
    const post = await waitFor(() => t.slack.messages.find((m) => m.channel === CHANNEL && m.bot_id), {
      what: 'the weekly post',
    });
    const click = (userId: string, actionId: string, value: string, blocks: unknown) => {
      const responseUrl = t.slack.responseUrl();
      const clicked = t.interaction(
        blockActionsPayload({
          userId,
          triggerId: t.slack.surfaces.mintTriggerId(userId),
          action: { action_id: actionId, value },
          container: {
            type: 'message',
            ...{ channelId: CHANNEL, messageTs: post.ts, responseUrl },
            message: { text: post.text, blocks: blocks as unknown[] },
          },
        }),
      );
      const told = waitFor(() => t.slack.responses.find((r) => r.path === new URL(responseUrl).pathname), {
        what: `the answer to ${userId}`,
      });
      return clicked.then(() => told).then((r) => String(r.body.text));
    };
    const updateSaying = (words: string) =>
      waitFor(
        () =>
          t.slack
            .callsOf('chat.update')
            .find((c) => c.args.ts === post.ts && JSON.stringify(c.args.blocks).includes(words)),
        { what: `the post updated with "${words}"` },
      );

    expect(await click('U0ALICE', 'weekly_stop', 'page_views', post.blocks)).toContain('no longer get');
    const stopped = await updateSaying('⏹ Stopped by <@U0ALICE> <!date^');
    const undo = (stopped.args.blocks as Block[]).find((b) => b.block_id === 'weekly_post_stop')!;
    expect(undo.accessory).toMatchObject({ action_id: 'weekly_undo_stop', value: 'page_views' });
    expect(JSON.stringify(stopped.args.blocks)).toContain('*This week: '); // the report itself stays
    expect(await answer(t, 'schedules')).toContain('This channel has no weekly page-view post');

    // Undo asks what Stop asks: someone not allowed here is refused and nothing changes.
    expect(await click('U0MALLORY', 'weekly_undo_stop', 'page_views', stopped.args.blocks)).toContain(
      "can't",
    );
    expect(await answer(t, 'schedules')).toContain('This channel has no weekly page-view post');

    expect(await click('U0BOB', 'weekly_undo_stop', 'page_views', stopped.args.blocks)).toContain(
      'go on in this channel',
    );
    const restarted = await updateSaying('▶️ Restarted by <@U0BOB> <!date^');
    const stop = (restarted.args.blocks as Block[]).find((b) => b.block_id === 'weekly_post_stop')!;
    expect(stop.accessory).toMatchObject({ action_id: 'weekly_stop', value: 'page_views' });
    expect(await answer(t, 'schedules')).toContain('<#C0DOCS> (this channel)');
    expect(t.slack.messages.find((m) => m.ts === post.ts)!.blocks).toEqual(restarted.args.blocks);
  }, 40_000);
});
