import { createConnection } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/http.js';
import { type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';
import { redisForReplicas } from '../support/redis-replicas.js';
import { answersPing } from '../support/redis-server.js';
import { eventEnvelope, messageEvent, nextMessageTs, retryHeaders } from '../support/slack-events.js';
import { botUserOf } from '../support/tenant-actions.js';
import { ALPHA, asTenant, registerTenants, type TestTenant } from '../support/tenant-bots.js';
import { installAndConnect } from '../support/tenant-connect.js';

/*
 * Issue 43, "Bad input and faults": the faults of a many-tenant deployment, each through signed requests to
 * the real OAuth-mode app on a real redis-server. (A token Slack refuses mid-request suspending its tenant is
 * processes-tenants-lifecycle.test.ts › "3 s of invalid_auth …".)
 */

/** One inline command on a connection of its own (CLIENT PAUSE pauses every client, the test's too). */
function redisCommand(port: number, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => socket.write(`${command}\r\n`));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().trim());
    });
    socket.once('error', reject);
  });
}

const linesOf = (app: OAuthTestApp, t: TestTenant, text: string) =>
  app.logs.filter((l) => l.includes(`"${t.key}"`) && l.includes(text));

describe('the directory not answering while a request of a tenant not resident arrives', () => {
  const redis = redisForReplicas();
  let app: OAuthTestApp;

  beforeAll(async () => {
    app = await startOAuthApp({
      env: { REDIS_URL: redis.url(), LOG_LEVEL: 'debug' },
      scopeIdleMs: 300,
      syncIntervalMs: 100,
    });
    registerTenants(app.slack, app.docs);
    expect((await installAndConnect(app, app.slack, ALPHA)).status).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await app?.stop();
  });

  it('a command is told what happened and to try again; a mention is refused (503) and runs at Slack’s retry', async () => {
    await waitFor(() => linesOf(app, ALPHA, 'idle; evicted').length > 0, {
      what: 'ALPHA not resident',
      timeoutMs: 10_000,
    });
    const port = Number(new URL(redis.url()).port);
    const jobsBefore = app.docs.jobs.size;
    const mentioned = 'ALPHA: document the pause flags';
    const mention = asTenant(
      eventEnvelope(
        messageEvent({
          type: 'app_mention',
          user: ALPHA.user,
          channel: ALPHA.channel(2),
          ts: nextMessageTs(),
          text: `<@${botUserOf(app.slack, ALPHA)}> ${mentioned}`,
        }),
        undefined,
        ALPHA.teamId,
      ),
      ALPHA,
    );

    // Redis answers nobody for 5 s: the directory's read of ALPHA's stamp waits past the request's deadline.
    expect(await redisCommand(port, 'CLIENT PAUSE 5000 ALL')).toBe('+OK');
    const [command, first] = await Promise.all([
      app.command({
        text: 'document the retry header',
        user_id: ALPHA.user,
        team_id: ALPHA.teamId,
        channel_id: ALPHA.channel(1),
      }),
      app.event(mention),
    ]);
    // The person is answered in the acknowledgement, in the first person, with what to do; no code.
    expect(command.status).toBe(200);
    const answer = JSON.parse(command.body) as { response_type?: string; text?: string };
    expect(answer.response_type).toBe('ephemeral');
    expect(answer.text).toContain("I can't reach my storage right now");
    expect(answer.text).toContain('Try it again in a minute');
    expect(answer.text).not.toMatch(/directory_unreadable|state_unavailable/);
    // The event is not acknowledged: Slack delivers it again.
    expect(first.status).toBe(503);

    // Redis answers again; Slack's retry of the same event (same event_id) is processed, once.
    await waitFor(() => answersPing(port), { what: 'Redis answering', timeoutMs: 10_000 });
    const retried = await app.event(mention, retryHeaders(1, 'http_error'));
    expect(retried.status).toBe(200);
    const job = await waitFor(
      () => [...app.docs.jobs.values()].find((j) => j.prompts[0]?.includes(mentioned)),
      { what: 'the mention’s job', timeoutMs: 10_000 },
    );
    expect(job).toBeDefined();
    // The command started nothing (its person was told so); the mention started one job.
    expect(app.docs.jobs.size).toBe(jobsBefore + 1);
  }, 60_000);
});
