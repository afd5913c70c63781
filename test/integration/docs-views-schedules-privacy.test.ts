import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../support/http.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/*
 * Issue 11: `/docs-views schedules` must not reveal other channels' schedules (private channels and who
 * created them) to everyone. The current channel's schedule is shown; the workspace-wide list only to
 * ADMIN_USER_IDS.
 */

let app: TestApp | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

async function schedulesAs(t: TestApp, user: string, channel: string): Promise<string> {
  const before = t.slack.responses.length;
  const ack = await t.command({
    command: '/docs-views',
    text: 'schedules',
    user_id: user,
    channel_id: channel,
  });
  expect(ack.status).toBe(200);
  const reply = await waitFor(() => t.slack.responses[before], { what: 'schedules reply' });
  return String(reply.body.text);
}

describe('/docs-views schedules privacy', () => {
  it('shows a member only the current channel’s schedule; an admin sees every channel', async () => {
    app = await startTestApp({ env: { ADMIN_USER_IDS: 'UADMIN1', LOG_LEVEL: 'info' } });
    const t = app;
    for (const [channel, user] of [
      ['CPUBLIC1', 'UALICE1'],
      ['GPRIVATE1', 'USECRET1'],
    ] as const) {
      const before = t.slack.responses.length;
      await t.command({
        command: '/docs-views',
        text: 'schedule monday 09:00 UTC',
        user_id: user,
        channel_id: channel,
      });
      await waitFor(() => t.slack.responses[before], { what: `schedule in ${channel}` });
    }

    const member = await schedulesAs(t, 'UBOB1', 'CPUBLIC1');
    expect(member).toContain('<#CPUBLIC1>');
    expect(member).not.toContain('GPRIVATE1');
    expect(member).not.toContain('USECRET1');

    const elsewhere = await schedulesAs(t, 'UBOB1', 'CEMPTY1');
    expect(elsewhere).not.toContain('CPUBLIC1');
    expect(elsewhere).not.toContain('GPRIVATE1');
    expect(elsewhere).toContain('no weekly page-view post');

    const admin = await schedulesAs(t, 'UADMIN1', 'CEMPTY1');
    expect(admin).toContain('<#CPUBLIC1>');
    expect(admin).toContain('<#GPRIVATE1>');
  });
});
