import { createCluster } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/http.js';
import { type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';
import { keysOf, primariesOf, type RedisCluster, startRedisCluster } from '../support/redis-cluster.js';
import { eventEnvelope } from '../support/slack-events.js';
import { ALPHA, BETA, registerTenants } from '../support/tenant-bots.js';
import { installAndConnect, prLinkReplies, startJob } from '../support/tenant-connect.js';

/**
 * Issue 34: the OAuth-mode bot on a real three-primary Redis Cluster (REDIS_CLUSTER): installs, a job
 * whose PR link reply arrives once (outbox scripts, versioned job saves, polls on the queue plane through
 * BullMQ on ioredis), and an uninstall whose purge reads only its tenant's slot, never SCANs a node.
 */
describe('OAuth mode on a Redis Cluster', () => {
  let cluster: RedisCluster;
  let app: OAuthTestApp;
  let probe: ReturnType<typeof createCluster>;

  beforeAll(async () => {
    cluster = await startRedisCluster();
    probe = createCluster({ rootNodes: [{ url: cluster.seedUrl }] });
    await probe.connect();
    app = await startOAuthApp({
      env: {
        REDIS_URL: cluster.seedUrl,
        REDIS_CLUSTER: 'true',
        POLL_INTERVAL_MS: '300',
        POLL_MAX_INTERVAL_MS: '600',
      },
      upkeepIntervalMs: 200,
      purgeDelayMs: 500,
    });
    registerTenants(app.slack, app.docs);
    expect((await installAndConnect(app, app.slack, ALPHA)).status).toBe(200);
    expect((await installAndConnect(app, app.slack, BETA)).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await app?.stop();
    probe?.destroy();
    await cluster?.stop();
  });

  const nodes = () => primariesOf(probe);
  const allKeys = () => keysOf(probe);
  /** Calls of one command on every primary together (INFO commandstats). */
  async function calls(command: string): Promise<number> {
    let total = 0;
    for (const node of await nodes()) {
      const match = new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(await node.info('commandstats'));
      total += Number(match?.[1] ?? 0);
    }
    return total;
  }
  const slotOf = async (key: string) =>
    Number(await (await nodes())[0]!.sendCommand(['CLUSTER', 'KEYSLOT', key]));

  it('runs a job to its PR link reply, once', async () => {
    const id = await startJob(app, app.docs, ALPHA, 'document the cluster settings');
    const pr = 'https://github.com/acme/docs/pull/7001';
    app.docs.complete(id, pr);
    const replies = () => prLinkReplies(app.slack, pr);
    await waitFor(() => replies().length > 0, { what: 'the PR link reply', timeoutMs: 15_000 });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(replies()).toHaveLength(1);
  });

  it('answers the rest of the product from the cluster: reports, a weekly schedule, alerts, Home', async () => {
    const answer = async (command: string, text: string) => {
      const before = app.slack.responses.length;
      const ack = await app.command({
        command,
        text,
        user_id: ALPHA.user,
        team_id: ALPHA.teamId,
        channel_id: ALPHA.channel(1),
        response_url: app.slack.responseUrl(`cluster-${command}-${text}`),
      });
      await waitFor(() => app.slack.responses.length > before || ack.body.length > 0, {
        what: `${command} ${text}`,
      });
      return ack.body + JSON.stringify(app.slack.responses.slice(before));
    };
    expect(await answer('/docs-views', '7d')).toContain('Page views · Last 7 days');
    expect(await answer('/docs-views', 'schedule monday 09:00 Europe/Berlin')).toMatch(/Monday/);
    expect(await answer('/docs-health', 'alerts on')).toContain('Docs-health alerts are on');
    const published = app.slack.callsOf('views.publish').length;
    await app.event(
      eventEnvelope(
        { type: 'app_home_opened', user: ALPHA.user, channel: 'D0ALPHA', tab: 'home' },
        undefined,
        ALPHA.teamId,
      ),
    );
    await waitFor(() => app.slack.callsOf('views.publish').length > published, { what: 'Home published' });
    // Nothing refused by the cluster (a key of another slot, a script's undeclared key) along the way.
    expect(app.logs.filter((line) => /CROSSSLOT|non local key|"level":(50|60)/.test(line))).toEqual([]);
  });

  it('keeps each tenant’s keys in one slot of their own, the directory and each queue in theirs', async () => {
    const keys = await allKeys();
    const alpha = keys.filter((key) => key.startsWith(`docs-agent:t:{${ALPHA.teamId}}`));
    expect(alpha.length).toBeGreaterThan(5);
    expect(new Set(await Promise.all(alpha.map(slotOf))).size).toBe(1);
    // Every key the bot wrote carries a hash tag: none can land in a slot its script or transaction did not name.
    // An install's record is under its tenant's tag, in the slot of the tenant's keys (issue 43 §5).
    expect(keys.filter((key) => !/^docs-agent:(t:|directory:tenant:)?\{[^}]+\}/.test(key))).toEqual([]);
    const records = keys.filter((key) => key.startsWith(`docs-agent:directory:tenant:{${ALPHA.teamId}}:`));
    expect(records.length).toBeGreaterThan(0);
    expect(new Set(await Promise.all([...alpha, ...records].map(slotOf))).size).toBe(1);
  });

  it('an uninstall purges its tenant’s slot without scanning any node, and leaves the others', async () => {
    const beta = `docs-agent:t:{${BETA.teamId}}`;
    expect((await allKeys()).some((key) => key.startsWith(beta))).toBe(true);
    const [scans, slotReads] = [await calls('scan'), await calls('cluster\\|getkeysinslot')];
    await app.event(eventEnvelope({ type: 'app_uninstalled' }, undefined, BETA.teamId));
    await waitFor(async () => !(await allKeys()).some((key) => key.startsWith(beta)), {
      what: 'Beta’s keys purged',
      timeoutMs: 10_000,
    });
    expect(await calls('scan')).toBe(scans);
    expect(await calls('cluster\\|getkeysinslot')).toBeGreaterThan(slotReads);
    // Alpha's job record (in the same slot as Beta's keys or not) is still there, and Alpha still served.
    expect(
      (await allKeys()).filter((key) => key.startsWith(`docs-agent:t:{${ALPHA.teamId}}::job:`)),
    ).toHaveLength(1);
    expect((await app.command({ text: 'help', team_id: ALPHA.teamId })).body).toContain('/docs-agent');
  });
});
