import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/http.js';
import { type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';
import { redisForReplicas } from '../support/redis-replicas.js';

/**
 * Issue 43 (cost follows work): a scope built for background work alone (here an install's welcome DM, owed
 * and delivered through the due index) is evicted after the short background idle time; one that served a
 * person's request keeps the full idle time. Built again, a scope's start does not owe the welcome again.
 */
describe('OAuth mode on Redis: a scope nobody asked for leaves soon', () => {
  const redis = redisForReplicas();
  let app: OAuthTestApp;

  beforeAll(async () => {
    app = await startOAuthApp({
      env: { REDIS_URL: redis.url(), LOG_LEVEL: 'debug', INSTALLS_PER_MINUTE: '1000' },
      scopeIdleMs: 600_000,
      backgroundIdleMs: 300,
      syncIntervalMs: 100,
    });
  });

  afterAll(async () => {
    await app?.stop();
  });

  const logged = (teamId: string, line: string) =>
    app.logs.filter((l) => l.includes(teamId) && l.includes(line)).length;
  const evicted = (teamId: string) => logged(teamId, 'idle; evicted');
  const resident = (teamId: string) =>
    logged(teamId, 'tenant runtime started') > logged(teamId, 'tenant runtime stopping');
  /** Its starts' looks at the welcome (`result`: only those that ended so). */
  const welcomeLooks = (teamId: string, result = '') =>
    app.logs.filter(
      (l) =>
        l.includes(teamId) && l.includes('welcome message looked at') && l.includes(`"result":"${result}`),
    ).length;
  /** Installs through the real flow and waits for the welcome DM (the scope's only work). */
  const install = async (teamId: string) => {
    const posts = app.slack.callsOf('chat.postMessage').length;
    expect((await app.install({ teamId, teamName: `Team ${teamId}` })).status).toBe(200);
    await waitFor(() => app.slack.callsOf('chat.postMessage').length > posts, {
      what: `${teamId}'s welcome`,
    });
  };

  it('evicts a scope that only sent its welcome DM, keeps one that answered a command', async () => {
    await install('T0QUIET');
    await install('T0ASKED');
    expect((await app.command({ text: 'help', team_id: 'T0ASKED' })).body).toContain('/docs-agent');
    await waitFor(() => evicted('T0QUIET') > 0, { what: 'the quiet scope evicted', timeoutMs: 15_000 });
    // A scope installed after the command, idle for less time than the asked one, is evicted too...
    await install('T0LATER');
    await waitFor(() => evicted('T0LATER') > 0, { what: 'the later scope evicted', timeoutMs: 15_000 });
    // ...while the one that served a person's request stays (its idle time is ten minutes).
    expect(evicted('T0ASKED')).toBe(0);
    // Built again on demand: its next command is answered as before.
    await waitFor(() => !resident('T0QUIET'), { what: 'the quiet scope not resident' });
    const [opened, looks] = [app.slack.callsOf('conversations.open').length, welcomeLooks('T0QUIET')];
    expect((await app.command({ text: 'help', team_id: 'T0QUIET' })).body).toContain('/docs-agent');
    // Its start finds the welcome recorded: no DM opened again, nothing recorded, so nothing marked due (a
    // start that marked its tenant due was looked at again, and rebuilt again once evicted: a loop).
    await waitFor(() => welcomeLooks('T0QUIET') > looks, { what: 'the rebuilt scope’s welcome look' });
    expect(welcomeLooks('T0QUIET', 'already-owed')).toBeGreaterThan(0);
    expect(welcomeLooks('T0QUIET', 'owed')).toBe(1);
    expect(app.slack.callsOf('conversations.open').length).toBe(opened);
  });
});
