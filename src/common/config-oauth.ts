import { z } from 'zod';
import { parseTrustedProxies, type TrustedProxy } from './client-address.js';
import { httpUrl, integer, optionalText } from './config-schemas.js';
import { parseEncryptionKeys, SecretBoxError } from './secret-box.js';

/**
 * OAuth mode ("Add to Slack"): set SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET and one
 * deployment serves every workspace or Enterprise Grid org that installs it; tokens come from installations,
 * docs projects are connected from Slack. Without them, single-workspace mode (SLACK_BOT_TOKEN) as before.
 */
export interface OAuthConfig {
  clientId: string;
  clientSecret: string;
  stateSecret: string;
  /** DATA_ENCRYPTION_KEY: seals tokens and docs keys at rest (AES-256-GCM). */
  encryptionKey: string;
  /** DATA_ENCRYPTION_KEYS_OLD: earlier keys, still readable while values are re-sealed (rotation). */
  oldEncryptionKeys: string | undefined;
  /**
   * SLACK_UPGRADED_TEAM_ID: the workspace (T…) or org (E…) this deployment served in single-workspace mode;
   * its tenant keeps the jobs, schedules and threads stored before the switch.
   */
  upgradedTenant: string | undefined;
  /**
   * TENANT_REVOCATION_WINDOW (seconds): how long Slack must keep refusing a tenant's stored token before it
   * is uninstalled; until then the tenant is suspended (no calls, data kept) and checked again with backoff.
   */
  revocationWindowMs: number;
  /** PRIVACY_URL and SUPPORT_URL: the operator's pages, linked from every install page (a Marketplace asks). */
  privacyUrl: string | undefined;
  supportUrl: string | undefined;
  /**
   * INSTALLS_PER_MINUTE: "Add to Slack" completions the whole deployment takes a minute (half of them per
   * address); the rest are asked to try again in a minute, so throw-away workspaces cannot flood it.
   */
  installsPerMinute: number;
  /**
   * TRUST_PROXY: the proxies in front (IP addresses or CIDR ranges) whose X-Forwarded-For is believed for
   * per-address install limits; empty: the connection's own address is the client's.
   */
  trustProxy: TrustedProxy[];
  /**
   * TENANT_IDLE_SECONDS and TENANT_SCOPES_MAX (Redis): a workspace's scope unused this long is evicted from a
   * replica, and a replica holds at most this many; eviction frees memory only (its work wakes it again).
   */
  scopeIdleMs: number;
  /**
   * TENANT_BACKGROUND_IDLE_SECONDS (Redis): a scope built for background work alone (a welcome DM, an alert
   * check, a PR follow: no request from Slack) is evicted after this idle time instead; at most the above.
   */
  backgroundIdleMs: number;
  maxResidentScopes: number;
  /**
   * QUEUE_SHARDS (Redis): queues each kind of background job (polls, PR follows, impact checks, weekly
   * posts, alert checks) is split into, a workspace's jobs all in the one its ID hashes to, so on a Redis
   * Cluster their traffic spreads over the primaries (8 there by default; 1 on a single node, where shards
   * spread nothing and cost a blocking connection each). A change re-homes the queued jobs once at start.
   */
  queueShards: number;
  /**
   * REDIS_CLUSTER: REDIS_URL names one node of a Redis Cluster. Every key then carries a hash tag (a tenant's
   * keys share one slot), queues run on ioredis (BullMQ's node-redis client has no cluster support).
   */
  redisCluster: boolean;
}

/** Sixty a minute: a launch-day rush of real teams, never a script creating workspaces by the thousand. */
export const DEFAULT_INSTALLS_PER_MINUTE = 60;

/** Ten minutes: a conversation's pauses stay resident, a workspace used once a day does not. */
export const DEFAULT_SCOPE_IDLE_S = 10 * 60;
/** Longer than a job's slowest poll (POLL_MAX_INTERVAL_MS, 60 s): a job's polls keep its scope resident. */
export const DEFAULT_BACKGROUND_IDLE_S = 90;
/** Two thousand resident workspaces: well under a replica's memory goal (about 0.3 MB each). */
export const DEFAULT_SCOPES_MAX = 2_000;

/** Eight queues a kind: on three primaries none holds most of them (src/state/redis/plane-shards.ts). */
export const DEFAULT_QUEUE_SHARDS = 8;
/**
 * One queue a kind on a single Redis node: shards only spread a cluster's slots, and each costs every replica
 * a blocking connection per kind (8 would make 40, over the 16-connection goal of BENCHMARKS §12).
 */
export const SINGLE_NODE_QUEUE_SHARDS = 1;

/** Three hours: a Slack auth incident or a misbehaving proxy outlasts a few seconds, rarely hours. */
export const DEFAULT_REVOCATION_WINDOW_S = 3 * 60 * 60;

const OAUTH_VARS = ['SLACK_CLIENT_ID', 'SLACK_CLIENT_SECRET', 'SLACK_STATE_SECRET'] as const;

export const oauthEnvFields = {
  SLACK_CLIENT_ID: optionalText,
  SLACK_CLIENT_SECRET: optionalText,
  SLACK_STATE_SECRET: optionalText,
  DATA_ENCRYPTION_KEY: optionalText,
  DATA_ENCRYPTION_KEYS_OLD: optionalText,
  TENANT_REVOCATION_WINDOW: integer(DEFAULT_REVOCATION_WINDOW_S, 1, 30 * 24 * 60 * 60),
  PRIVACY_URL: optionalText.pipe(httpUrl.optional()),
  SUPPORT_URL: optionalText.pipe(httpUrl.optional()),
  INSTALLS_PER_MINUTE: integer(DEFAULT_INSTALLS_PER_MINUTE, 1, 100_000),
  TRUST_PROXY: optionalText.transform((text, ctx) => {
    if (text === undefined) return [];
    const parsed = parseTrustedProxies(text);
    if (parsed.ok) return parsed.proxies;
    ctx.addIssue({ code: 'custom', message: parsed.problem });
    return z.NEVER;
  }),
  TENANT_IDLE_SECONDS: integer(DEFAULT_SCOPE_IDLE_S, 10, 7 * 24 * 60 * 60),
  TENANT_BACKGROUND_IDLE_SECONDS: integer(DEFAULT_BACKGROUND_IDLE_S, 10, 7 * 24 * 60 * 60),
  TENANT_SCOPES_MAX: integer(DEFAULT_SCOPES_MAX, 10, 1_000_000),
  QUEUE_SHARDS: optionalText.pipe(
    z
      .string()
      .regex(/^-?\d+$/, 'must be a whole number')
      .transform(Number)
      .pipe(z.number().min(1, 'must be at least 1').max(256, 'must be at most 256'))
      .optional(),
  ),
  REDIS_CLUSTER: optionalText
    .pipe(z.enum(['true', 'false'], { error: 'must be true or false' }).optional())
    .transform((v) => v === 'true'),
  SLACK_UPGRADED_TEAM_ID: optionalText.pipe(
    z
      .string()
      .regex(/^[TE][A-Z0-9]{2,}$/, 'must be a workspace ID (T…) or an Enterprise Grid org ID (E…)')
      .optional(),
  ),
};

/** Signs the install links' state: short enough to guess is short enough to forge an install. */
const MIN_STATE_SECRET_LENGTH = 32;

const set = (env: NodeJS.ProcessEnv, name: string) => (env[name]?.trim() ?? '') !== '';

/** OAuth mode is on when any of its three variables is set (and then all three must be). */
export function isOAuthMode(env: NodeJS.ProcessEnv): boolean {
  return OAUTH_VARS.some((name) => set(env, name));
}

/** Rules of OAuth mode, reported with every other problem. */
export function oauthProblems(env: NodeJS.ProcessEnv): string[] {
  if (!isOAuthMode(env))
    return env.REDIS_CLUSTER?.trim() === 'true'
      ? [
          'REDIS_CLUSTER is for OAuth mode, a deployment serving many workspaces; one workspace needs one Redis',
        ]
      : [];
  const problems = OAUTH_VARS.filter((name) => !set(env, name)).map(
    (name) =>
      `${name} is required in OAuth mode (set with ${OAUTH_VARS.filter((n) => set(env, n)).join(', ')}; Basic Information → App Credentials${name === 'SLACK_STATE_SECRET' ? '; any long random string' : ''})`,
  );
  const stateSecret = env.SLACK_STATE_SECRET?.trim() ?? '';
  if (stateSecret !== '' && stateSecret.length < MIN_STATE_SECRET_LENGTH)
    problems.push(
      `SLACK_STATE_SECRET is ${stateSecret.length} characters: use at least ${MIN_STATE_SECRET_LENGTH} random ones (\`openssl rand -base64 32\`), the same on every replica; a short one lets install links be forged`,
    );
  if (!set(env, 'DATA_ENCRYPTION_KEY'))
    problems.push(
      'DATA_ENCRYPTION_KEY is required in OAuth mode: it seals tokens and docs keys at rest (generate one with `openssl rand -base64 32`)',
    );
  else problems.push(...encryptionKeyProblems(env));
  if (set(env, 'SLACK_BOT_TOKEN'))
    problems.push(
      'SLACK_BOT_TOKEN must not be set in OAuth mode: each workspace’s token comes from its installation (remove it; see docs/operating.md, "Upgrading to OAuth mode")',
    );
  if (set(env, 'SLACK_APP_TOKEN'))
    problems.push(
      'SLACK_APP_TOKEN (Socket Mode) cannot be used in OAuth mode: distributed apps receive requests over HTTP',
    );
  if (env.REDIS_CLUSTER?.trim() === 'true') problems.push(...clusterProblems(env));
  return problems;
}

/** A cluster keeps every key under a hash tag: the single-node names of an upgraded workspace are not there. */
function clusterProblems(env: NodeJS.ProcessEnv): string[] {
  const problems: string[] = [];
  if (!set(env, 'REDIS_URL'))
    problems.push('REDIS_CLUSTER needs REDIS_URL: the address of one node of the cluster');
  if (set(env, 'SLACK_UPGRADED_TEAM_ID'))
    problems.push(
      'SLACK_UPGRADED_TEAM_ID cannot be used with REDIS_CLUSTER: the upgraded workspace’s data is in single-node key names; copy it with `npm run redis:to-cluster` first, then remove SLACK_UPGRADED_TEAM_ID (docs/operating.md, "Moving to a Redis Cluster")',
    );
  return problems;
}

/** The keys are read here, not first at start-up, so a malformed one joins the list instead of a stack trace. */
function encryptionKeyProblems(env: NodeJS.ProcessEnv): string[] {
  try {
    parseEncryptionKeys(env.DATA_ENCRYPTION_KEY ?? '', env.DATA_ENCRYPTION_KEYS_OLD);
    return [];
  } catch (error) {
    // SecretBoxError messages name the variable and never carry key material.
    if (error instanceof SecretBoxError) return [error.message];
    throw error;
  }
}

export function oauthConfigOf(e: {
  SLACK_CLIENT_ID?: string | undefined;
  SLACK_CLIENT_SECRET?: string | undefined;
  SLACK_STATE_SECRET?: string | undefined;
  DATA_ENCRYPTION_KEY?: string | undefined;
  DATA_ENCRYPTION_KEYS_OLD?: string | undefined;
  SLACK_UPGRADED_TEAM_ID?: string | undefined;
  TENANT_REVOCATION_WINDOW?: number | undefined;
  PRIVACY_URL?: string | undefined;
  SUPPORT_URL?: string | undefined;
  INSTALLS_PER_MINUTE?: number | undefined;
  TRUST_PROXY?: TrustedProxy[] | undefined;
  TENANT_IDLE_SECONDS?: number | undefined;
  TENANT_BACKGROUND_IDLE_SECONDS?: number | undefined;
  TENANT_SCOPES_MAX?: number | undefined;
  QUEUE_SHARDS?: number | undefined;
  REDIS_CLUSTER?: boolean | undefined;
}): OAuthConfig | undefined {
  if (!e.SLACK_CLIENT_ID || !e.SLACK_CLIENT_SECRET || !e.SLACK_STATE_SECRET || !e.DATA_ENCRYPTION_KEY)
    return undefined;
  return {
    clientId: e.SLACK_CLIENT_ID,
    clientSecret: e.SLACK_CLIENT_SECRET,
    stateSecret: e.SLACK_STATE_SECRET,
    encryptionKey: e.DATA_ENCRYPTION_KEY,
    oldEncryptionKeys: e.DATA_ENCRYPTION_KEYS_OLD,
    upgradedTenant: e.SLACK_UPGRADED_TEAM_ID,
    revocationWindowMs: (e.TENANT_REVOCATION_WINDOW ?? DEFAULT_REVOCATION_WINDOW_S) * 1000,
    privacyUrl: e.PRIVACY_URL,
    supportUrl: e.SUPPORT_URL,
    installsPerMinute: e.INSTALLS_PER_MINUTE ?? DEFAULT_INSTALLS_PER_MINUTE,
    trustProxy: e.TRUST_PROXY ?? [],
    scopeIdleMs: (e.TENANT_IDLE_SECONDS ?? DEFAULT_SCOPE_IDLE_S) * 1000,
    backgroundIdleMs: (e.TENANT_BACKGROUND_IDLE_SECONDS ?? DEFAULT_BACKGROUND_IDLE_S) * 1000,
    maxResidentScopes: e.TENANT_SCOPES_MAX ?? DEFAULT_SCOPES_MAX,
    queueShards:
      e.QUEUE_SHARDS ?? (e.REDIS_CLUSTER === true ? DEFAULT_QUEUE_SHARDS : SINGLE_NODE_QUEUE_SHARDS),
    redisCluster: e.REDIS_CLUSTER === true,
  };
}

/** The variables a single-workspace deployment needs that OAuth mode takes from installations and Slack. */
export const PER_TENANT_VARS = ['SLACK_BOT_TOKEN', 'DOCS_API_KEY', 'DOCS_PROJECT_ID'] as const;
