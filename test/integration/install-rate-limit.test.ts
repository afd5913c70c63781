import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';

/**
 * Issue 34: installs cannot take the deployment down. INSTALLS_PER_MINUTE completions a minute for the
 * deployment; the next is sent a "busy" page with Retry-After before its code is exchanged, so nothing is
 * written for it, and the next minute takes installs again.
 */
describe('"Add to Slack" under a flood of installs', () => {
  let app: OAuthTestApp;
  // The minute is the app's clock: held still inside one minute, then moved on.
  let now = Math.floor(Date.now() / 60_000) * 60_000 + 5_000;
  beforeAll(async () => {
    app = await startOAuthApp({ env: { INSTALLS_PER_MINUTE: '3' }, clock: { now: () => now } });
  });
  afterAll(async () => {
    await app?.stop();
  });

  const exchanges = () => app.slack.calls.filter((c) => c.method === 'oauth.v2.access').length;

  it('takes INSTALLS_PER_MINUTE a minute, asks the next to come back, and writes nothing for it', async () => {
    for (const n of [1, 2, 3]) {
      const page = await app.install({ teamId: `T0RATE${n}`, teamName: `Rate ${n}` });
      expect(page.status).toBe(200);
    }
    expect(exchanges()).toBe(3);
    const refused = await app.install({ teamId: 'T0RATE4', teamName: 'Rate 4' });
    expect(refused.status).toBe(429);
    expect(refused.html).toContain('Too many installations right now');
    expect(refused.html).toContain('Nothing was\ninstalled');
    // When to come back: the next minute of the app's clock.
    const next = new Date(Math.floor(now / 60_000) * 60_000 + 60_000).toISOString().slice(11, 19);
    expect(refused.html).toContain(`Try again after <strong>${next} UTC</strong> (in 55 seconds)`);
    expect(exchanges()).toBe(3); // its code was never exchanged
    expect(app.logs.some((l) => l.includes('T0RATE4') && l.includes('"installed"'))).toBe(false);
    expect(app.logs.filter((l) => l.includes('asked to wait'))).toHaveLength(1);

    now += 60_000;
    const later = await app.install({ teamId: 'T0RATE4', teamName: 'Rate 4' });
    expect(later.status).toBe(200);
    expect(exchanges()).toBe(4);
  });
});
