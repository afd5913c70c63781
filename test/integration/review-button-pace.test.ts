import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../support/http.js';
import { blockActionsPayload } from '../support/slack-interactions.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/*
 * Issue 46 §3: "Review and send" needs a history read to open its form. An internal app's reads come about
 * once a second, so a click whose read slot is taken waits for it (up to a second) instead of refusing at
 * once; a refusal says the tier's pace in words (once a minute only for a distributed app).
 */
describe('"Review and send" and the history read pace (signed requests)', () => {
  let t: TestApp | undefined;
  afterEach(async () => t?.stop());

  const click = (app: TestApp, ts: string, path: string) =>
    app.interaction(
      blockActionsPayload({
        triggerId: app.slack.surfaces.mintTriggerId('U0ALICE'),
        action: { action_id: 'review_reacted_message', value: JSON.stringify({ c: 'C0DOCS', t: ts }) },
        container: {
          type: 'message',
          channelId: 'C0DOCS',
          messageTs: '1700000000.000900',
          responseUrl: app.slack.responseUrl(path),
        },
      }),
    );

  it('an internal app: two clicks at once both open their form, the second waiting for its read slot', async () => {
    // 100 reads a minute: one slot every ~0.63 s, no burst, so the second click's slot is taken when it comes.
    t = await startTestApp({ env: { SLACK_TIER_RATE_PERCENT: '200', SLACK_APP_TIER: 'internal' } });
    const app = t;
    const ts = ['1700000000.000701', '1700000000.000702'];
    for (const [i, at] of ts.entries())
      app.slack.messages.push({
        channel: 'C0DOCS',
        ts: at,
        text: `Webhook retries are wrong ${i}`,
        user: 'U0BOB',
      });
    const clicks = await Promise.all([click(app, ts[0]!, 'one'), click(app, ts[1]!, 'two')]);
    expect(clicks.map((r) => r.status)).toEqual([200, 200]);
    // Each click ends in its form or in words on its response_url: wait for both, then say which it was (a
    // refusal used to leave this waiting out its 5 s for a form that would never come).
    const answered = () => app.slack.surfaces.modals.size + app.slack.responses.length;
    await waitFor(() => (answered() >= 2 ? true : undefined), { what: 'an answer to both clicks' });
    expect(app.slack.responses.map((r) => `${r.path}: ${String(r.body.text)}`)).toEqual([]);
    const forms = JSON.stringify([...app.slack.surfaces.modals.values()].map((m) => m.view));
    expect(forms).toContain('Webhook retries are wrong 0');
    expect(forms).toContain('Webhook retries are wrong 1');
  });

  it('an internal app whose slot is further than a second away refuses in the words of once a second', async () => {
    // 10 reads a minute (SLACK_TIER_RATE_PERCENT 20): the next slot is ~6 s away, past the second's wait.
    t = await startTestApp({ env: { SLACK_TIER_RATE_PERCENT: '20', SLACK_APP_TIER: 'internal' } });
    const app = t;
    const ts = ['1700000000.000721', '1700000000.000722'];
    for (const at of ts)
      app.slack.messages.push({ channel: 'C0DOCS', ts: at, text: 'Fix the quickstart', user: 'U0BOB' });
    await click(app, ts[0]!, 'first');
    await waitFor(() => (app.slack.surfaces.modals.size === 1 ? true : undefined), {
      what: 'the first form',
    });
    await click(app, ts[1]!, 'second');
    const told = await waitFor(() => app.slack.responses.find((r) => r.path.endsWith('/second')), {
      what: 'the refusal',
    });
    expect(String(told.body.text)).toMatch(
      /^Slack lets me read messages in this workspace only about once a second/,
    );
    expect(String(told.body.text)).not.toContain('minute');
    expect(app.slack.surfaces.modals.size).toBe(1);
  });

  it('a distributed app: a second click within the minute is refused in the words of once a minute', async () => {
    t = await startTestApp({ env: { SLACK_TIER_RATE_PERCENT: '100', SLACK_APP_TIER: 'distributed' } });
    const app = t;
    const ts = ['1700000000.000711', '1700000000.000712'];
    for (const at of ts)
      app.slack.messages.push({ channel: 'C0DOCS', ts: at, text: 'Fix the quickstart', user: 'U0BOB' });
    await click(app, ts[0]!, 'first');
    await waitFor(() => (app.slack.surfaces.modals.size === 1 ? true : undefined), {
      what: 'the first form',
    });
    await click(app, ts[1]!, 'second');
    const told = await waitFor(() => app.slack.responses.find((r) => r.path.endsWith('/second')), {
      what: 'the refusal',
    });
    expect(String(told.body.text)).toMatch(
      /^Slack lets me read messages in this workspace only about once a minute/,
    );
    expect(told.body.response_type).toBe('ephemeral');
    expect(app.slack.surfaces.modals.size).toBe(1);
  });
});
