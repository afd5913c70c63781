import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES, ConfigError, loadConfig } from '../../src/common/config.js';

/*
 * Every malformed setting is answered in the one friendly list (never a stack trace from deeper in start-up),
 * and .env.example lists every variable the bot reads, each at its default where it has one.
 */

const ROOT = join(import.meta.dirname, '..', '..');
const KEY = Buffer.alloc(32, 7).toString('base64');
const oauth = {
  SLACK_CLIENT_ID: '1111.2222',
  SLACK_CLIENT_SECRET: 'client-secret-0123456789',
  SLACK_STATE_SECRET: 'state-secret-0123456789-0123456789',
  SLACK_SIGNING_SECRET: 'signing-secret-0123456789',
  DATA_ENCRYPTION_KEY: KEY,
};
const single = {
  SLACK_BOT_TOKEN: 'xoxb-1-2-abc',
  SLACK_SIGNING_SECRET: 'secret-secret',
  DOCS_API_KEY: 'svc_abcdefghijklmnopqrstuvwxyz',
  DOCS_PROJECT_ID: 'proj_1',
};

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('malformed settings are answered in the list', () => {
  it.each([
    ['not base64', { DATA_ENCRYPTION_KEY: 'not base64 at all!' }, /^DATA_ENCRYPTION_KEY is not base64/],
    ['16 bytes', { DATA_ENCRYPTION_KEY: Buffer.alloc(16, 1).toString('base64') }, /decodes to 16 bytes/],
    ['a bad id', { DATA_ENCRYPTION_KEY: `Bad Id:${KEY}` }, /^DATA_ENCRYPTION_KEY: the id before ':'/],
    ['a bad old key', { DATA_ENCRYPTION_KEYS_OLD: 'short' }, /^DATA_ENCRYPTION_KEYS_OLD entry 1/],
    ['the current key as old', { DATA_ENCRYPTION_KEYS_OLD: KEY }, /appears twice/],
  ])('DATA_ENCRYPTION_KEY*: %s', (_what, change, expected) => {
    const env = { ...oauth, ...change };
    const error = configError({ ...env, SLACK_CLIENT_SECRET: '' });
    // Reported together with every other problem, and never echoing the key.
    expect(error.problems.some((p) => p.startsWith('SLACK_CLIENT_SECRET is required'))).toBe(true);
    expect(error.problems.some((p) => expected.test(p))).toBe(true);
    expect(error.message).not.toContain(env.DATA_ENCRYPTION_KEY);
    if ('DATA_ENCRYPTION_KEYS_OLD' in change)
      expect(error.message).not.toContain(change.DATA_ENCRYPTION_KEYS_OLD);
  });

  it('a well-formed key, named or not, starts', () => {
    expect(loadConfig(oauth).oauth?.encryptionKey).toBe(KEY);
    expect(loadConfig({ ...oauth, DATA_ENCRYPTION_KEY: `k2:${KEY}` }).oauth).toBeDefined();
  });

  it('REDIS_CLUSTER: OAuth mode with a REDIS_URL, no upgraded workspace; each rule said', () => {
    const cluster = { ...oauth, REDIS_CLUSTER: 'true', REDIS_URL: 'redis://10.0.0.1:7000' };
    expect(loadConfig(cluster).oauth?.redisCluster).toBe(true);
    expect(loadConfig({ ...oauth, REDIS_URL: 'redis://10.0.0.1:7000' }).oauth?.redisCluster).toBe(false);
    expect(configError({ ...single, REDIS_CLUSTER: 'true' }).problems).toEqual([
      'REDIS_CLUSTER is for OAuth mode, a deployment serving many workspaces; one workspace needs one Redis',
    ]);
    expect(configError({ ...cluster, REDIS_URL: '' }).problems).toEqual([
      'REDIS_CLUSTER needs REDIS_URL: the address of one node of the cluster',
    ]);
    expect(configError({ ...cluster, SLACK_UPGRADED_TEAM_ID: 'T0ACME' }).problems[0]).toMatch(
      /^SLACK_UPGRADED_TEAM_ID cannot be used with REDIS_CLUSTER/,
    );
    expect(configError({ ...cluster, REDIS_CLUSTER: 'yes' }).problems).toEqual([
      'REDIS_CLUSTER must be true or false',
    ]);
  });

  it('QUEUE_SHARDS: 1 by default on one node, 8 on a cluster, a whole number from 1 to 256', () => {
    expect(loadConfig(oauth).oauth?.queueShards).toBe(1);
    expect(
      loadConfig({ ...oauth, REDIS_URL: 'redis://127.0.0.1:7000', REDIS_CLUSTER: 'true' }).oauth?.queueShards,
    ).toBe(8);
    expect(loadConfig({ ...oauth, QUEUE_SHARDS: '16' }).oauth?.queueShards).toBe(16);
    expect(configError({ ...oauth, QUEUE_SHARDS: '0' }).problems).toEqual([
      'QUEUE_SHARDS must be at least 1',
    ]);
    expect(configError({ ...oauth, QUEUE_SHARDS: '257' }).problems).toEqual([
      'QUEUE_SHARDS must be at most 256',
    ]);
    expect(configError({ ...oauth, QUEUE_SHARDS: 'many' }).problems).toEqual([
      'QUEUE_SHARDS must be a whole number',
    ]);
  });

  it('METRICS_PORT on the port Slack reaches is refused (the bind would fail later)', () => {
    expect(configError({ ...single, METRICS_PORT: '3000' }).problems).toEqual([
      'METRICS_PORT must differ from PORT (3000): /metrics is served on its own port, never the one Slack reaches',
    ]);
    expect(configError({ ...single, PORT: '9464' }).problems[0]).toMatch(/^METRICS_PORT must differ/);
    expect(loadConfig({ ...single, PORT: '0', METRICS_PORT: '0' }).port).toBe(0);
  });

  it('a REDIS_URL that is no URL (a port that is not a number) is named, not a connection error later', () => {
    expect(configError({ ...single, REDIS_URL: 'redis://localhost:six' }).problems).toEqual([
      'REDIS_URL must be a URL such as redis://:password@host:6379 (percent-encode a password with @ / : #)',
    ]);
  });

  it('points to the doc that describes each variable', () => {
    expect(configError({}).message).toContain('docs/operating.md#configuration');
    expect(readFileSync(join(ROOT, 'docs', 'operating.md'), 'utf8')).toMatch(/^## Configuration$/m);
  });
});

describe('.env.example', () => {
  const text = readFileSync(join(ROOT, '.env.example'), 'utf8');
  const lines = new Map(
    [...text.matchAll(/^#? ?([A-Z][A-Z0-9_]+)=(.*)$/gm)].map((m) => [m[1] as string, m[2] as string]),
  );
  // No default: required, a secret, or optional and empty unless set (the example shows a sample).
  const NO_DEFAULT = new Set([
    ...['SLACK_BOT_TOKEN', 'SLACK_SIGNING_SECRET', 'SLACK_APP_TOKEN', 'SLACK_API_URL', 'DOCS_API_KEY'],
    ...['DOCS_PROJECT_ID', 'DOCS_CHANNEL_PROJECTS', 'DOCS_SITE_URL', 'REDIS_URL', 'ALLOWED_CHANNEL_IDS'],
    ...['ALLOWED_USER_IDS', 'ADMIN_USER_IDS', 'WEEKLY_REPORT_CHANNEL', 'WEEKLY_REPORT_CRON'],
    ...['WEEKLY_REPORT_TZ', 'GITHUB_TOKEN', 'SLACK_CLIENT_ID', 'SLACK_CLIENT_SECRET', 'SLACK_STATE_SECRET'],
    ...['DATA_ENCRYPTION_KEY', 'DATA_ENCRYPTION_KEYS_OLD', 'SLACK_UPGRADED_TEAM_ID', 'GITHUB_TOKEN_OWNERS'],
    // SLACK_APP_TIER's default depends on the mode; the links and HOST are optional and empty unless set.
    ...['SLACK_APP_TIER', 'PRIVACY_URL', 'SUPPORT_URL', 'HOST', 'DOCS_JOB_URL_PATTERN'],
  ]);

  // Read by compose.yml and `npm run doctor` only.
  const DEPLOYMENT = ['PUBLIC_HOST', 'REDIS_PASSWORD', 'PUBLIC_URL'];

  it('lists every variable the bot reads, and none it does not', () => {
    expect(CONFIG_VARIABLES.length).toBeGreaterThan(50);
    expect(CONFIG_VARIABLES.filter((name) => !lines.has(name))).toEqual([]);
    const unknown = [...lines.keys()].filter((name) => !CONFIG_VARIABLES.includes(name));
    expect(unknown).toEqual(DEPLOYMENT);
  });

  it('shows each variable that has a default at exactly that default', () => {
    const base = loadConfig(single);
    const notDefault = CONFIG_VARIABLES.filter((name) => !NO_DEFAULT.has(name)).filter((name) => {
      const value = lines.get(name) ?? '';
      return (
        value === '' || JSON.stringify(loadConfig({ ...single, [name]: value })) !== JSON.stringify(base)
      );
    });
    expect(notDefault).toEqual([]);
  });

  it('points to the doc, not "the README"', () => {
    expect(text).toContain('docs/operating.md#configuration');
    expect(text).not.toMatch(/the\s+#?\s*README/);
  });
});

describe('config errors never print a key (issue 44)', () => {
  const KEY_A = 'svc_live_0123456789abcdefghijkl';
  it.each([
    ['an entry with two "="', `C0123ABC=proj_a=${KEY_A}`],
    ['a key where the project goes', `C0123ABC=${KEY_A}`],
    ['a key where the channel goes', `${KEY_A}=proj_a`],
    ['a malformed key after ":"', `C0123ABC=proj_a:${KEY_A}!`],
  ])('DOCS_CHANNEL_PROJECTS: %s', (_what, entry) => {
    const error = configError({ ...single, DOCS_CHANNEL_PROJECTS: entry });
    expect(error.problems.some((p) => p.startsWith('DOCS_CHANNEL_PROJECTS'))).toBe(true);
    expect(error.message).not.toContain(KEY_A.slice(4));
  });

  it('a secret of any shape is scrubbed by value from every problem', () => {
    const odd = 'hunter2-not-shaped-like-a-token';
    const error = configError({
      ...single,
      SLACK_SIGNING_SECRET: odd,
      DOCS_CHANNEL_PROJECTS: `C0123ABC=proj=${odd}`,
    });
    expect(error.problems.length).toBeGreaterThan(0);
    expect(error.message).not.toContain(odd);
  });
});
