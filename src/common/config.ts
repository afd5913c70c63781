import { z } from 'zod';
import { crossFieldProblems } from './config-checks.js';
import { type GithubConfig, githubConfigOf, githubEnvFields, githubProblems } from './config-github.js';
import {
  isOAuthMode,
  type OAuthConfig,
  oauthConfigOf,
  oauthEnvFields,
  oauthProblems,
} from './config-oauth.js';
import { apiUrl, flag, httpUrl, idList, integer, optionalText, redisUrl } from './config-schemas.js';
import { envScrubber } from './env-secrets.js';
import { AppError } from './errors.js';
import { jobUrlPatternSchema } from './job-links.js';
import { channelProjectsSchema } from './projects.js';

/** Slack's rate-limit classes of apps (their history reads differ; see SLACK_APP_TIER). */
export const SLACK_APP_TIERS = ['internal', 'marketplace', 'distributed'] as const;
export type SlackAppTier = (typeof SLACK_APP_TIERS)[number];

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** The fill-in values of .env.example (`xoxb-your-bot-token`, `your-project-id`, …): an unedited copy must not boot. */
const PLACEHOLDER = /(^|[-_])your[-_]/i;
const PLACEHOLDER_MESSAGE = 'still holds the placeholder from .env.example: paste the real value';
const notPlaceholder = (value: string | undefined) => value === undefined || !PLACEHOLDER.test(value);

const envSchema = z.object({
  SLACK_BOT_TOKEN: z
    .string({ error: 'is required: the Bot User OAuth Token (xoxb-…) from OAuth & Permissions' })
    .trim()
    .startsWith('xoxb-', 'must be a bot token starting with xoxb- (OAuth & Permissions page)')
    .refine(notPlaceholder, `${PLACEHOLDER_MESSAGE} (OAuth & Permissions → Bot User OAuth Token)`),
  SLACK_SIGNING_SECRET: optionalText.refine(
    notPlaceholder,
    `${PLACEHOLDER_MESSAGE} (Basic Information → Signing Secret)`,
  ),
  SLACK_APP_TOKEN: optionalText.pipe(
    z
      .string()
      .startsWith(
        'xapp-',
        'must be an app-level token starting with xapp- (Basic Information → App-Level Tokens)',
      )
      .refine(notPlaceholder, `${PLACEHOLDER_MESSAGE}, or leave it empty for HTTP mode`)
      .optional(),
  ),
  SLACK_API_URL: optionalText.pipe(apiUrl.optional()),
  PORT: integer(3000, 0, 65535),
  HOST: optionalText,
  METRICS_PORT: integer(9464, 0, 65535),
  METRICS_HOST: optionalText.transform((v) => v ?? '127.0.0.1'),
  DOCS_API_URL: optionalText
    .pipe(apiUrl.optional())
    .transform((value) => value ?? 'https://api.mintlify.com'),
  DOCS_API_KEY: z
    .string({ error: 'is required: an admin API key (svc_…) from the docs dashboard’s API keys page' })
    .trim()
    .startsWith('svc_', 'must be an admin API key starting with svc_ (dashboard → API keys)')
    .refine(notPlaceholder, `${PLACEHOLDER_MESSAGE} (dashboard → API keys)`),
  DOCS_PROJECT_ID: z
    .string({ error: 'is required: the project ID shown on the dashboard’s API keys page' })
    .trim()
    .min(1, 'must not be empty')
    .regex(/^[A-Za-z0-9_-]+$/, 'must be a project ID (letters, digits, - and _ only)')
    .refine(notPlaceholder, `${PLACEHOLDER_MESSAGE} (the project ID on the dashboard’s API keys page)`),
  DOCS_CHANNEL_PROJECTS: channelProjectsSchema,
  DOCS_API_TIMEOUT_MS: integer(10_000, 100, 120_000),
  DOCS_API_MAX_CONCURRENCY: integer(4, 1, 64),
  DOCS_API_MAX_RPS: integer(10, 0, 1000),
  AGENT_JOBS_PER_HOUR: integer(100, 1, 1_000_000),
  USER_BUDGET_SHARE: integer(50, 1, 100),
  DOCS_SITE_URL: optionalText.pipe(httpUrl.optional()),
  DOCS_JOB_URL_PATTERN: jobUrlPatternSchema,
  REDIS_URL: optionalText.pipe(redisUrl.optional()),
  POLL_INTERVAL_MS: integer(5_000, 10),
  POLL_MAX_INTERVAL_MS: integer(60_000, 10),
  POLL_MAX_AGE_MS: integer(6 * 60 * 60 * 1000, 1_000),
  SLACK_API_TIMEOUT_MS: integer(10_000, 100, 120_000),
  SLACK_CHANNEL_POST_INTERVAL_MS: integer(1_000, 0, 60_000),
  SLACK_TIER_RATE_PERCENT: integer(100, 0, 100_000),
  SLACK_APP_TIER: optionalText.pipe(
    z.enum(SLACK_APP_TIERS, { error: `must be one of ${SLACK_APP_TIERS.join(', ')}` }).optional(),
  ),
  SLACK_STREAM_HANDOVER_MS: integer(240_000, 1_000, 290_000),
  ALLOWED_CHANNEL_IDS: idList('channel'),
  ALLOWED_USER_IDS: idList('user'),
  ADMIN_USER_IDS: idList('user'),
  ALLOW_EXTERNAL_USERS: flag(false),
  FOLLOW_UPS_FROM: optionalText.pipe(z.enum(['anyone', 'requester']).default('anyone')),
  ANALYTICS_MAX_PAGES: integer(40, 1, 1000),
  ANALYTICS_CACHE_TTL_MS: integer(15 * 60 * 1000, 0),
  ANALYTICS_HOURLY_BUDGET: integer(100, 1, 100_000),
  REPORT_CHARTS: flag(true),
  HEALTH_IMPACT_DAYS: integer(14, 1, 180),
  HEALTH_ALERT_INTERVAL_MS: integer(60 * 60 * 1000, 1_000, 24 * 60 * 60 * 1000),
  WEEKLY_REPORT_CHANNEL: optionalText,
  WEEKLY_REPORT_CRON: optionalText,
  WEEKLY_REPORT_TZ: optionalText,
  DOCS_AGENT_REACTION: optionalText
    .pipe(
      z
        .string()
        .regex(/^:?[a-z0-9_+'-]+:?$/, 'must be an emoji name such as memo (lowercase, no spaces)')
        .optional(),
    )
    .transform((v) => (v ?? 'memo').replace(/^:|:$/g, '')),
  LOG_LEVEL: optionalText.pipe(z.enum(LOG_LEVELS).optional()).transform((v) => v ?? 'info'),
  ...githubEnvFields,
  ...oauthEnvFields,
});

/** OAuth mode: the token and the docs project come from each tenant's installation and settings. */
const oauthEnvSchema = envSchema.extend({
  SLACK_BOT_TOKEN: optionalText,
  DOCS_API_KEY: envSchema.shape.DOCS_API_KEY.optional(),
  DOCS_PROJECT_ID: envSchema.shape.DOCS_PROJECT_ID.optional(),
});

export type Env = z.infer<typeof envSchema>;

/** Every variable the bot reads (`.env.example` lists each, with its default). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(envSchema.shape);

export interface Config {
  slack: {
    botToken: string;
    signingSecret: string | undefined;
    appToken: string | undefined;
    apiUrl: string | undefined;
    timeoutMs: number;
    /** Pacing of posts per channel (Slack allows ~1 per second per channel); 0 = off. */
    channelPostIntervalMs: number;
    /** Pacing of every other Web API method, as a percentage of its documented tier; 0 = off. */
    tierRatePercent: number;
    /** How long a streamed job message is used before it is handed over (Slack closes streams at ~5 min). */
    streamHandoverMs: number;
    /**
     * SLACK_APP_TIER: which of Slack's limits on reading history apply. `distributed` (an "Add to Slack" app
     * not approved for the Marketplace): conversations.history and .replies once a minute each per
     * workspace, 15 messages a page. Default: distributed in OAuth mode, internal otherwise.
     */
    appTier: SlackAppTier;
  };
  port: number;
  /** The address `port` listens on (`HOST`); undefined: every interface. */
  host: string | undefined;
  docs: {
    apiUrl: string;
    apiKey: string;
    projectId: string;
    /** DOCS_CHANNEL_PROJECTS: channels acting on another project than DOCS_PROJECT_ID. */
    channelProjects: ReadonlyMap<string, string>;
    /** DOCS_CHANNEL_PROJECTS' `project:svc_…`: projects called with their own admin key. */
    projectKeys: ReadonlyMap<string, string>;
    timeoutMs: number;
    maxConcurrency: number;
    /** Ceiling on job polls started per second (whole process in memory mode, all replicas with Redis; 0 = none). */
    maxPollsPerSecond: number;
    /** Job creations plus follow-ups allowed per project per rolling hour (the platform's limit). */
    jobsPerHour: number;
    /** USER_BUDGET_SHARE: percent of a project's hourly job budget one person may spend. */
    userSharePercent: number;
    siteUrl: string | undefined;
    /** DOCS_JOB_URL_PATTERN: a job's page on the docs platform (`job-links.ts`); every tenant's. */
    jobUrlPattern: string | undefined;
  };
  redisUrl: string | undefined;
  /** Where GET /metrics is served: its own port, loopback by default, never the port Slack reaches. */
  metrics: { host: string; port: number };
  poll: { intervalMs: number; maxIntervalMs: number; maxAgeMs: number };
  access: {
    channelIds: string[];
    userIds: string[];
    /** May see workspace-wide listings (every channel's weekly schedule). */
    adminUserIds: string[];
    followUpsFrom: 'anyone' | 'requester';
    /** ALLOW_EXTERNAL_USERS: Slack Connect users of other organisations may use the bot (default: refused). */
    allowExternalUsers: boolean;
    /** The emoji (name, no colons) whose reaction on a message starts a job from it. */
    jobReaction: string;
  };
  analytics: {
    maxPages: number;
    cacheTtlMs: number;
    hourlyBudget: number;
    /** Reports carry a chart of daily counts (REPORT_CHARTS, default true). */
    charts: boolean;
    /** Days after a health-fix PR before its impact post (and the length of each compared window). */
    healthImpactDays: number;
    /** How often subscribed channels' docs-health signals are checked for alerts (one replica per interval). */
    healthAlertIntervalMs: number;
    weeklyReport: { channel: string | undefined; cron: string | undefined; timeZone: string | undefined };
  };
  /** Optional GitHub access: follows PRs to their merge (GITHUB_TOKEN, GITHUB_API_URL, PR_FOLLOW_*). */
  github: GithubConfig;
  logLevel: (typeof LOG_LEVELS)[number];
  /** OAuth mode ("Add to Slack", many tenants); undefined in single-workspace mode. */
  oauth: OAuthConfig | undefined;
}

export class ConfigError extends AppError<'invalid_config'> {
  readonly problems: string[];

  constructor(problems: string[]) {
    super(
      'invalid_config',
      `docs-agent cannot start: fix these environment variables (each is described in docs/operating.md#configuration):\n${problems
        .map((problem) => `  - ${problem}`)
        .join('\n')}`,
    );
    this.problems = problems;
  }
}

/** Reads and validates the whole environment once; every problem is reported together. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = (isOAuthMode(env) ? oauthEnvSchema : envSchema).safeParse(env);
  const crossField = [...crossFieldProblems(env), ...githubProblems(env), ...oauthProblems(env)];
  if (!parsed.success || crossField.length > 0) {
    const fieldProblems = (parsed.error?.issues ?? []).map((issue) => {
      const name = issue.path.join('.') || 'environment';
      const isMissing = issue.code === 'invalid_type' && env[name] === undefined;
      return isMissing && !issue.message.startsWith('is required')
        ? `${name} is required`
        : `${name} ${issue.message}`;
    });
    // Never a secret in the list, whatever a problem's text quotes (an entry, a URL): by value and by shape.
    const scrub = envScrubber(env);
    throw new ConfigError([...fieldProblems, ...crossField].map(scrub));
  }
  const e = parsed.data;
  return {
    slack: {
      botToken: e.SLACK_BOT_TOKEN ?? '',
      signingSecret: e.SLACK_SIGNING_SECRET,
      appToken: e.SLACK_APP_TOKEN,
      apiUrl: e.SLACK_API_URL,
      timeoutMs: e.SLACK_API_TIMEOUT_MS,
      channelPostIntervalMs: e.SLACK_CHANNEL_POST_INTERVAL_MS,
      tierRatePercent: e.SLACK_TIER_RATE_PERCENT,
      streamHandoverMs: e.SLACK_STREAM_HANDOVER_MS,
      appTier: e.SLACK_APP_TIER ?? (isOAuthMode(env) ? 'distributed' : 'internal'),
    },
    port: e.PORT,
    host: e.HOST,
    metrics: { host: e.METRICS_HOST, port: e.METRICS_PORT },
    docs: {
      apiUrl: e.DOCS_API_URL,
      apiKey: e.DOCS_API_KEY ?? '',
      projectId: e.DOCS_PROJECT_ID ?? '',
      channelProjects: e.DOCS_CHANNEL_PROJECTS.channels,
      projectKeys: e.DOCS_CHANNEL_PROJECTS.keys,
      timeoutMs: e.DOCS_API_TIMEOUT_MS,
      maxConcurrency: e.DOCS_API_MAX_CONCURRENCY,
      maxPollsPerSecond: e.DOCS_API_MAX_RPS,
      jobsPerHour: e.AGENT_JOBS_PER_HOUR,
      userSharePercent: e.USER_BUDGET_SHARE,
      siteUrl: e.DOCS_SITE_URL,
      jobUrlPattern: e.DOCS_JOB_URL_PATTERN,
    },
    redisUrl: e.REDIS_URL,
    poll: {
      intervalMs: e.POLL_INTERVAL_MS,
      maxIntervalMs: e.POLL_MAX_INTERVAL_MS,
      maxAgeMs: e.POLL_MAX_AGE_MS,
    },
    access: {
      channelIds: e.ALLOWED_CHANNEL_IDS,
      userIds: e.ALLOWED_USER_IDS,
      adminUserIds: e.ADMIN_USER_IDS,
      followUpsFrom: e.FOLLOW_UPS_FROM,
      allowExternalUsers: e.ALLOW_EXTERNAL_USERS,
      jobReaction: e.DOCS_AGENT_REACTION,
    },
    analytics: {
      maxPages: e.ANALYTICS_MAX_PAGES,
      cacheTtlMs: e.ANALYTICS_CACHE_TTL_MS,
      hourlyBudget: e.ANALYTICS_HOURLY_BUDGET,
      charts: e.REPORT_CHARTS,
      healthImpactDays: e.HEALTH_IMPACT_DAYS,
      healthAlertIntervalMs: e.HEALTH_ALERT_INTERVAL_MS,
      weeklyReport: {
        channel: e.WEEKLY_REPORT_CHANNEL,
        cron: e.WEEKLY_REPORT_CRON,
        timeZone: e.WEEKLY_REPORT_TZ,
      },
    },
    github: githubConfigOf(e),
    logLevel: e.LOG_LEVEL,
    oauth: oauthConfigOf(e),
  };
}

/** Units of a project's hourly job budget one person may spend: USER_BUDGET_SHARE percent, at least one. */
export function userShareOf(config: { docs: { jobsPerHour: number; userSharePercent: number } }): number {
  return Math.max(1, Math.floor((config.docs.jobsPerHour * config.docs.userSharePercent) / 100));
}
