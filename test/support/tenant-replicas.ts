import { writeFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { BotProcess } from './bot-process.js';
import type { FakeDocs } from './fake-docs.js';
import type { FakeSlack } from './fake-slack.js';
import { bot, fakes, redisServer, stopProcesses } from './process-helpers.js';
import type { RedisServer } from './redis-server.js';
import {
  BETA,
  INSTALLED,
  installThrough,
  projectConnected,
  registerTenants,
  TenantCallClock,
} from './tenant-bots.js';
import { connectThroughModal } from './tenant-connect.js';

/** BETA's admin (ADMIN_USER_IDS): may look up any job id; status then asks the platform in BETA's project. */
export const BETA_ADMIN = 'U0BETAADM';

export interface TenantReplicas {
  slack: FakeSlack;
  docs: FakeDocs;
  redis: RedisServer;
  a: BotProcess;
  b: BotProcess;
  calls: TenantCallClock;
  /** Replica a or b, alternating with `n`: requests of every tenant reach both. */
  replica(n: number): BotProcess;
}

/**
 * Two OAuth-mode bot processes (replicas a and b) on one redis-server over the fakes; ALPHA, BETA and the GRID
 * org (INSTALLED) installed through the real flow on replica a, each connected to its own project and key
 * (`/docs-agent connect` and its form), and served
 * on both replicas.
 */
export async function startTenantReplicas(): Promise<TenantReplicas> {
  const { slack, docs } = await fakes();
  registerTenants(slack, docs);
  slack.userTeams.set(BETA_ADMIN, BETA.teamId);
  const calls = new TenantCallClock(slack);
  const redis = await redisServer();
  const env = {
    POLL_INTERVAL_MS: '100',
    POLL_MAX_INTERVAL_MS: '200',
    ADMIN_USER_IDS: BETA_ADMIN,
    // A tenant whose token Slack refuses is uninstalled after 4 s of refusals (3 h by default).
    TENANT_REVOCATION_WINDOW: '4',
  };
  const start = (name: string) =>
    bot({ name, slack, docs, redisUrl: redis.url, env, oauth: true, startTimeoutMs: 40_000 });
  const [a, b] = await Promise.all([start('a'), start('b')]);
  const replicas: TenantReplicas = { slack, docs, redis, a, b, calls, replica: (n) => (n % 2 === 0 ? a : b) };
  try {
    await installAndConnect(replicas);
  } catch (error) {
    await stopTenantReplicas(replicas, 'tenants-setup');
    throw error;
  }
  return replicas;
}

async function installAndConnect({ slack, a, b }: TenantReplicas): Promise<void> {
  for (const [i, t] of INSTALLED.entries()) {
    const page = await installThrough(a, slack, t);
    expect(page).toContain(t.install.isEnterpriseInstall ? t.install.enterpriseName : t.install.teamName);
    // Its installer connects its project from Slack, on either replica.
    const submitted = await connectThroughModal(i % 2 === 0 ? b : a, slack, t);
    expect(submitted).toEqual(expect.objectContaining({ status: 200, body: '' }));
  }
  for (const t of INSTALLED) await projectConnected([a, b], t);
}

/** Stops everything; TENANT_LOGS_DIR=/tmp keeps both replicas' output for a look after a failure. */
export async function stopTenantReplicas(replicas: TenantReplicas | undefined, file: string): Promise<void> {
  const dir = process.env.TENANT_LOGS_DIR;
  if (dir && replicas)
    for (const p of [replicas.a, replicas.b])
      writeFileSync(`${dir}/${file}-${p.name}.log`, p.stdout() + p.stderr());
  await stopProcesses();
}
