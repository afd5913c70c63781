import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';
import { ALPHA, BETA, registerTenants } from '../support/tenant-bots.js';
import { installAndConnect, startJob } from '../support/tenant-connect.js';

/**
 * Issue 43: the process's clients of the outside are built once and shared by every tenant's scope; a
 * scope builds none of its own.
 */
describe('OAuth mode: one edge per process', () => {
  let app: OAuthTestApp;
  beforeAll(async () => {
    app = await startOAuthApp();
    app.docs.keepAliveFor(30_000); // an idle connection stays for the next tenant's call
    registerTenants(app.slack, app.docs);
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('sends every tenant’s docs calls over the process’s one pool to the docs origin', async () => {
    // Each connects its project (a key check: one read), one after the other with nothing else in flight, so a
    // shared pool hands BETA's check the socket ALPHA's left idle. (Connecting BETA while ALPHA's job polled
    // could open a second socket and leave each with one key: CI saw that once.) Then each starts a job.
    for (const t of [ALPHA, BETA]) expect((await installAndConnect(app, app.slack, t)).status).toBe(200);
    for (const t of [ALPHA, BETA]) await startJob(app, app.docs, t, `document the ${t.marker} limits`);
    // A pool per tenant (or per key check) would keep each connection to one tenant's key.
    const shared = [...app.docs.keysBySocket.values()].filter((keys) => keys.size > 1);
    expect(shared.length).toBeGreaterThan(0);
    expect(app.docs.connections).toBeLessThan(4);
  });
});
