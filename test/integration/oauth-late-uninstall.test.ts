import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/http.js';
import { type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';
import { eventEnvelope } from '../support/slack-events.js';

/*
 * Issue 44: Slack retries an uninstall signal for a while. One sent after the first install but before the
 * workspace installed the app again is about the earlier install: the re-install stays served. One sent
 * after the re-install still uninstalls it.
 */
describe('a late app_uninstalled and a re-install (OAuth mode, signed requests)', () => {
  let app: OAuthTestApp;
  // The app's clock: the first install now, the re-install two minutes later.
  let aheadMs = 0;
  beforeAll(async () => {
    app = await startOAuthApp({ clock: { now: () => Date.now() + aheadMs } });
  });
  afterAll(async () => {
    await app?.stop();
  });

  const served = async () =>
    (await app.command({ text: 'help', team_id: 'T0LATE' })).body.includes('/docs-agent connect');
  const signal = (atMs: number) => ({
    ...eventEnvelope({ type: 'app_uninstalled' }, undefined, 'T0LATE'),
    event_time: Math.floor(atMs / 1000),
  });
  const lines = (text: string) => app.logs.filter((l) => l.includes('T0LATE') && l.includes(text));

  it('a signal sent between the first install and the re-install leaves it served; a later one uninstalls it', async () => {
    const first = Date.now();
    expect((await app.install({ teamId: 'T0LATE', teamName: 'Late' })).status).toBe(200);
    aheadMs = 120_000;
    expect((await app.install({ teamId: 'T0LATE', teamName: 'Late' })).status).toBe(200);
    await waitFor(served, { what: 'T0LATE served', timeoutMs: 5_000 });

    // Sent a minute after the first install, a minute before the re-install; delivered only now.
    await app.event(signal(first + 60_000), {
      'x-slack-retry-num': '3',
      'x-slack-retry-reason': 'http_timeout',
    });
    await waitFor(() => lines('from before the app was installed again').length === 1, {
      what: 'the late signal handled',
      timeoutMs: 5_000,
    });
    expect(await served()).toBe(true);
    expect(lines('uninstalled or its token revoked')).toEqual([]);

    // One sent after the re-install counts (the check above is not blind).
    await app.event(signal(first + aheadMs + 5_000));
    await waitFor(async () => !(await served()), { what: 'T0LATE uninstalled', timeoutMs: 5_000 });
  });
});
