import { afterEach, describe, expect, it } from 'vitest';
import { makeViewRows } from '../support/fake-docs.js';
import { waitFor } from '../support/http.js';
import { ManualTimers } from '../support/manual-timers.js';
import { startTestApp } from '../support/test-app.js';

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

/** The real app with a manual clock for the weekly scheduler. */
async function startWithClock(timers: ManualTimers) {
  const app = await startTestApp({
    env: { LOG_LEVEL: 'info' },
    agentOptions: { clock: { now: timers.now }, schedulerTimers: timers },
  });
  cleanup.push(() => app.stop());
  const command = (text: string) => app.command({ command: '/docs-views', text });
  return { slack: app.slack, docs: app.docs, command, logs: app.logs };
}

describe('/docs-views weekly posts', () => {
  it('posts the last 7 full local days at the schedule time of the (fake) clock, once', async () => {
    // Monday 2025-03-24, 08:59 in Berlin.
    const timers = new ManualTimers(Date.parse('2025-03-24T07:59:00Z'));
    const { slack, docs, command } = await startWithClock(timers);
    const rows = makeViewRows(300);
    // Berlin's local midnights (CET, +01:00), not UTC days: no local hour falls between two weekly posts.
    const from = '2025-03-17T00:00:00+01:00';
    const to = '2025-03-24T00:00:00+01:00';
    docs.viewsByRange.set(`${from}..${to}`, rows);

    const ack = await command('schedule monday 09:00 Europe/Berlin');
    expect(ack.status).toBe(200);
    const confirmation = await waitFor(() => slack.responses[0], { what: 'schedule confirmation' });
    expect(String(confirmation.body.text)).toContain('Scheduled: every Monday at 09:00 (Europe/Berlin)');
    expect(String(confirmation.body.text)).toContain('<!date^1742803200^');

    await timers.advanceTo(Date.parse('2025-03-24T07:59:59Z'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(slack.callsOf('chat.postMessage')).toHaveLength(0);

    await timers.advanceTo(Date.parse('2025-03-24T08:00:00Z'));
    const post = await slack.waitForCall('chat.postMessage');
    expect(post.args.channel).toBe('C0DOCS');
    const blocks = JSON.stringify(post.args.blocks);
    expect(blocks).toContain('17–23 Mar 2025 (Europe/Berlin)');
    expect(blocks).toContain(`${rows.reduce((s, r) => s + r.total, 0).toLocaleString('en-US')}`);
    const rangeCalls = docs
      .requestsTo('GET', /\/views$/)
      .filter((r) => r.query.get('dateFrom') === from && r.query.get('dateTo') === to);
    expect(rangeCalls).toHaveLength(2);

    await timers.advanceTo(Date.parse('2025-03-24T09:00:00Z'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(slack.callsOf('chat.postMessage')).toHaveLength(1);

    const listed = await command('schedules');
    expect(listed.status).toBe(200);
    const list = await waitFor(() => slack.responses[1], { what: 'schedules list' });
    expect(String(list.body.text)).toContain('<#C0DOCS> (this channel)');
  });
});
