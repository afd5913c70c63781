import { randomBytes } from 'node:crypto';
import { createClient } from '@redis/client';
import { DIRECTORY_PREFIX, RedisTenantDirectory, secretBoxFromSettings } from './product.js';

/**
 * The Redis side of the deployment benchmark (bench/deployment.ts): installs seeded through the directory's
 * own API (sealed with the deployment's key, stamped and announced exactly as an install is), and a probe
 * that reads Redis's own accounts (INFO, CLIENT LIST) on one connection of its own, so its cost is known.
 */

/** The seeded workspaces' ids: T0S000000, T0S000001, … (flow installs and cold tenants use others). */
export const seededTeam = (i: number) => `T0S${String(i).padStart(6, '0')}`;
/** Concurrent writes per batch: node-redis pipelines them on its one connection. */
const BATCH = 1_000;

/** Installs workspaces `from`..`to`-1 through `RedisTenantDirectory.saveInstallation`; ms taken. */
/** Seeded installs' bot tokens start so (the fake Slack takes them). */
export const SEEDED_TOKEN_PREFIX = 'xoxb-seed-';

export async function seedInstalls(
  redisUrl: string,
  encryptionKey: string,
  from: number,
  to: number,
): Promise<number> {
  const client = createClient({ url: redisUrl });
  await client.connect();
  const started = performance.now();
  try {
    const directory = new RedisTenantDirectory(
      client,
      DIRECTORY_PREFIX,
      secretBoxFromSettings(encryptionKey, undefined),
    );
    const now = Date.now();
    for (let start = from; start < to; start += BATCH) {
      const writes: Promise<boolean>[] = [];
      for (let i = start; i < Math.min(to, start + BATCH); i++) {
        const tenant = seededTeam(i);
        writes.push(
          directory.saveInstallation({
            tenant,
            teamId: tenant,
            enterpriseId: undefined,
            isEnterpriseInstall: false,
            name: `Seeded ${i}`,
            // A token of Slack's shape, unique per install (the log scrubber holds every one).
            botToken: `${SEEDED_TOKEN_PREFIX}${tenant}-${randomBytes(12).toString('hex')}`,
            botUserId: `U${tenant}BOT`,
            botId: `B${tenant}BOT`,
            refreshToken: undefined,
            expiresAt: undefined,
            installerUserId: 'U0INSTALLER',
            scopes: ['commands', 'chat:write', 'app_mentions:read', 'im:history', 'users:read'],
            appId: 'A0DOCSAGENT',
            installedAt: now,
          }),
        );
      }
      const saved = await Promise.all(writes);
      if (saved.includes(false)) throw new Error(`the directory refused a seeded install (${start}…)`);
    }
  } finally {
    await client.close();
  }
  return performance.now() - started;
}

/** What the probe uses of a node-redis client (whose full type is generic over modules and RESP version). */
interface ProbeClient {
  sendCommand<T>(args: string[]): Promise<T>;
  close(): Promise<void>;
}

/** Redis's accounts, read on one connection that stays open (so a look costs exactly its one command). */
export class RedisProbe {
  private constructor(
    private readonly client: ProbeClient,
    private readonly id: number,
  ) {}

  static async open(redisUrl: string): Promise<RedisProbe> {
    const client = createClient({ url: redisUrl });
    await client.connect();
    const id = Number(await client.sendCommand<number>(['CLIENT', 'ID']));
    return new RedisProbe(client, id);
  }

  /** INFO <section> as field → value. */
  async info(section: string): Promise<Map<string, string>> {
    const text = String(await this.client.sendCommand<string>(['INFO', section]));
    const fields = new Map<string, string>();
    for (const line of text.split('\r\n')) {
      const at = line.indexOf(':');
      if (at > 0 && !line.startsWith('#')) fields.set(line.slice(0, at), line.slice(at + 1));
    }
    return fields;
  }

  /** Commands processed since Redis started (this probe's INFO counted once the next look runs). */
  async commandsProcessed(): Promise<number> {
    return Number((await this.info('stats')).get('total_commands_processed'));
  }

  /** Calls and Redis's time (µs) per command (INFO commandstats: `cmdstat_get:calls=…,usec=…`). */
  async commandStats(): Promise<Map<string, { calls: number; usec: number }>> {
    const stats = new Map<string, { calls: number; usec: number }>();
    for (const [name, value] of await this.info('commandstats'))
      stats.set(name.replace(/^cmdstat_/, ''), {
        calls: Number(/calls=(\d+)/.exec(value)?.[1] ?? 0),
        usec: Number(/usec=(\d+)/.exec(value)?.[1] ?? 0),
      });
    return stats;
  }

  /** Calls per command. */
  async commandCalls(): Promise<Map<string, number>> {
    return new Map([...(await this.commandStats())].map(([name, { calls }]) => [name, calls]));
  }

  async usedMemory(): Promise<number> {
    return Number((await this.info('memory')).get('used_memory'));
  }

  /** Every other client's local port (CLIENT LIST `addr`), this probe left out. */
  async clientPorts(): Promise<number[]> {
    const list = String(await this.client.sendCommand<string>(['CLIENT', 'LIST']));
    return list
      .split('\n')
      .filter((line) => line.trim() && !line.startsWith(`id=${this.id} `))
      .map((line) => Number(/ addr=[^ ]*:(\d+) /.exec(line)?.[1] ?? Number.NaN));
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/** Calls per command between two commandstats looks, busiest first. */
export function busiestCommands(
  before: Map<string, number>,
  after: Map<string, number>,
  seconds: number,
  top = 6,
): string {
  return [...after]
    .map(([name, calls]) => [name, (calls - (before.get(name) ?? 0)) / seconds] as const)
    .filter(([, perS]) => perS > 0)
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, perS]) => `${name} ${perS.toFixed(perS < 10 ? 1 : 0)}/s`)
    .join(', ');
}
