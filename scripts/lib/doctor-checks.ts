import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient } from '@redis/client';
import { parse } from 'yaml';
import { type Config, ConfigError, loadConfig } from '../../src/common/config.js';
import { DocsApiError } from '../../src/common/docs-api-error.js';
import { envScrubber } from '../../src/common/env-secrets.js';
import { createLogger } from '../../src/common/logger.js';
import { DocsApiClient } from '../../src/platform/docs-client.js';
import { manifestProblems, ROOT } from './manifest-rules.js';

/*
 * `npm run doctor`: each part of a set-up checked once, cheaply, with what to do when it fails. Nothing here
 * writes anywhere or starts a job; the docs read spends one of the hourly analytics requests.
 */

export type Outcome = 'pass' | 'fail' | 'skip';
export interface Check {
  name: string;
  outcome: Outcome;
  /** What was found (pass) or what is wrong and what to do (fail), or why it was not checked (skip). */
  detail: string;
}

export interface DoctorOptions {
  /** The environment the bot would read (.env already applied). */
  env: NodeJS.ProcessEnv;
  /** Per network check (default 5 s). */
  timeoutMs?: number;
}

const pass = (name: string, detail: string): Check => ({ name, outcome: 'pass', detail });
const fail = (name: string, detail: string): Check => ({ name, outcome: 'fail', detail });
const skip = (name: string, detail: string): Check => ({ name, outcome: 'skip', detail });

export async function runDoctor(options: DoctorOptions): Promise<Check[]> {
  // Every line it prints is scrubbed of this environment's secrets, by value and by shape.
  const scrub = envScrubber(options.env);
  return (await runChecks(options)).map((check) => ({ ...check, detail: scrub(check.detail) }));
}

async function runChecks(options: DoctorOptions): Promise<Check[]> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  let config: Config;
  try {
    config = loadConfig(options.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    // Nothing else can be checked with settings the bot would refuse.
    return error.problems.map((problem) => fail('settings', problem));
  }
  const checks: Check[] = [pass('settings', `${modeOf(config)}; every variable valid`)];
  checks.push(await slackCheck(config, timeoutMs));
  if (config.slack.appToken) checks.push(await socketModeCheck(config, config.slack.appToken, timeoutMs));
  checks.push(await docsCheck(config, timeoutMs));
  checks.push(await redisCheck(config, timeoutMs));
  checks.push(manifestCheck());
  checks.push(...(await publicUrlChecks(config, options.env, timeoutMs)));
  return checks;
}

function modeOf(config: Config): string {
  if (config.oauth) return 'OAuth mode (Add to Slack)';
  return config.slack.appToken ? 'Socket Mode' : 'HTTP mode';
}

function slackApi(config: Config, method: string): string {
  return new URL(method, config.slack.apiUrl ?? 'https://slack.com/api/').toString();
}

async function slackCall(
  url: string,
  init: RequestInit,
  timeoutMs: number,
): Promise<Record<string, unknown>> {
  const response = await fetch(url, { ...init, method: 'POST', signal: AbortSignal.timeout(timeoutMs) });
  return (await response.json()) as Record<string, unknown>;
}

async function slackCheck(config: Config, timeoutMs: number): Promise<Check> {
  const name = 'Slack';
  try {
    if (config.oauth) {
      // A made-up code: Slack checks the client's credentials first, so `invalid_code` means they are right.
      const body = new URLSearchParams({
        client_id: config.oauth.clientId,
        client_secret: config.oauth.clientSecret,
        code: 'docs-agent-doctor',
      });
      const answer = await slackCall(slackApi(config, 'oauth.v2.access'), { body }, timeoutMs);
      if (answer.error === 'invalid_code')
        return pass(name, 'SLACK_CLIENT_ID and SLACK_CLIENT_SECRET accepted');
      return fail(
        name,
        `Slack refused the app credentials (${String(answer.error)}): copy SLACK_CLIENT_ID and SLACK_CLIENT_SECRET again from Basic Information → App Credentials`,
      );
    }
    const answer = await slackCall(
      slackApi(config, 'auth.test'),
      { headers: { authorization: `Bearer ${config.slack.botToken}` } },
      timeoutMs,
    );
    if (answer.ok === true)
      return pass(name, `SLACK_BOT_TOKEN is the bot @${String(answer.user)} in ${String(answer.team)}`);
    return fail(
      name,
      `Slack refused SLACK_BOT_TOKEN (${String(answer.error)}): install the app again (Install App) and copy the Bot User OAuth Token`,
    );
  } catch (error) {
    return fail(
      name,
      `Slack did not answer (${reasonOf(error)}): check the network, or SLACK_API_URL if set`,
    );
  }
}

/** Socket Mode: the app-level token opens a connection URL (not used: it expires unopened). */
async function socketModeCheck(config: Config, appToken: string, timeoutMs: number): Promise<Check> {
  const name = 'Socket Mode';
  try {
    const answer = await slackCall(
      slackApi(config, 'apps.connections.open'),
      { headers: { authorization: `Bearer ${appToken}` } },
      timeoutMs,
    );
    if (answer.ok === true) return pass(name, 'SLACK_APP_TOKEN opens Socket Mode connections');
    return fail(
      name,
      `Slack refused SLACK_APP_TOKEN (${String(answer.error)}): generate an app-level token with connections:write (Basic Information → App-Level Tokens), and turn Socket Mode on in the app`,
    );
  } catch (error) {
    return fail(
      name,
      `Slack did not answer (${reasonOf(error)}): check the network, or SLACK_API_URL if set`,
    );
  }
}

async function docsCheck(config: Config, timeoutMs: number): Promise<Check> {
  const name = 'docs platform';
  if (!config.docs.apiKey)
    return skip(name, 'OAuth mode: each workspace connects its own docs project from Slack');
  const client = new DocsApiClient({
    baseUrl: config.docs.apiUrl,
    apiKey: config.docs.apiKey,
    projectId: config.docs.projectId,
    timeoutMs,
    retries: 0,
    logger: createLogger({ level: 'silent', secrets: [] }),
  });
  const today = new Date().toISOString().slice(0, 10);
  const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  try {
    await client.getPageViews({ dateFrom: yesterday, dateTo: today, limit: 1, offset: 0 });
    return pass(name, `DOCS_API_KEY reads project ${config.docs.projectId} (one analytics request spent)`);
  } catch (error) {
    if (!(error instanceof DocsApiError)) throw error;
    const fix: Record<string, string> = {
      unauthorized:
        'DOCS_API_KEY is not accepted: create an admin key (svc_…) on the dashboard’s API keys page',
      forbidden: 'DOCS_API_KEY may not read this project: use an admin key of the project’s organisation',
      not_found: `no project ${config.docs.projectId}: copy DOCS_PROJECT_ID from the dashboard’s API keys page`,
      rate_limited: 'the hourly analytics budget is spent: try again within the hour',
    };
    return fail(
      name,
      fix[error.code] ?? `the platform answered ${error.code}: check DOCS_API_URL (${config.docs.apiUrl})`,
    );
  } finally {
    await client.close();
  }
}

async function redisCheck(config: Config, timeoutMs: number): Promise<Check> {
  const name = 'Redis';
  if (!config.redisUrl)
    return skip(name, 'no REDIS_URL: state is kept in memory (one process, lost on restart)');
  const client = createClient({
    url: config.redisUrl,
    socket: { connectTimeout: timeoutMs, reconnectStrategy: false },
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
    const version = /redis_version:(\d+)\.(\d+)/.exec(await client.info('server'));
    const [major, minor] = [Number(version?.[1] ?? 0), Number(version?.[2] ?? 0)];
    if (major < 6 || (major === 6 && minor < 2))
      return fail(name, `Redis ${major}.${minor} answers, but the bot needs 6.2 or newer`);
    const where = hostOf(config.redisUrl);
    const clusterProblem = await clusterCheck(client, where, config.oauth?.redisCluster === true);
    if (clusterProblem) return fail(name, clusterProblem);
    const what = config.oauth?.redisCluster ? 'a Redis Cluster node' : 'Redis';
    return pass(name, `${what} ${major}.${minor} answers at ${where}`);
  } catch (error) {
    return fail(
      name,
      `Redis at ${hostOf(config.redisUrl)} does not answer (${reasonOf(error)}): check REDIS_URL (host, port, password)`,
    );
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** A cluster node without REDIS_CLUSTER (or the reverse) fails at the first key of another node: said here. */
async function clusterCheck(
  client: { info(section: string): Promise<string>; sendCommand(args: string[]): Promise<unknown> },
  where: string,
  expected: boolean,
): Promise<string | undefined> {
  const enabled = /cluster_enabled:1/.test(await client.info('cluster'));
  if (enabled && !expected)
    return `${where} is a node of a Redis Cluster: set REDIS_CLUSTER=true (OAuth mode; docs/operating.md, "Redis Cluster")`;
  if (!enabled && expected)
    return `REDIS_CLUSTER=true, but ${where} is not a cluster node: point REDIS_URL at a node of the cluster, or remove REDIS_CLUSTER`;
  if (!enabled) return undefined;
  const state = /cluster_state:(\w+)/.exec(String(await client.sendCommand(['CLUSTER', 'INFO'])))?.[1];
  return state === 'ok'
    ? undefined
    : `the Redis Cluster at ${where} says cluster_state:${state ?? 'unknown'}: some slots have no primary (redis-cli --cluster check ${where})`;
}

function manifestCheck(): Check {
  const name = 'manifest';
  const problems = manifestProblems(parse(readFileSync(join(ROOT, 'manifest.yml'), 'utf8')));
  if (problems.length === 0) return pass(name, 'manifest.yml declares what the code handles');
  return fail(name, `manifest.yml disagrees with the code: ${problems.join('; ')}`);
}

/** PUBLIC_URL (or compose's PUBLIC_HOST): where Slack and browsers reach the bot. Read only by this check. */
async function publicUrlChecks(config: Config, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<Check[]> {
  const name = 'public URL';
  const base = env.PUBLIC_URL?.trim() || (env.PUBLIC_HOST?.trim() ? `https://${env.PUBLIC_HOST.trim()}` : '');
  if (!base)
    return [
      skip(
        name,
        config.slack.appToken
          ? 'Socket Mode needs none'
          : 'set PUBLIC_URL=https://<your host> to check that Slack can reach the bot',
      ),
    ];
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return [fail(name, `PUBLIC_URL ${base} is not a URL: write it as https://<your host>`)];
  }
  const checks: Check[] = [];
  if (url.protocol !== 'https:' && !['localhost', '127.0.0.1'].includes(url.hostname))
    checks.push(
      fail(
        name,
        `${url.origin} is not https: Slack sends requests only to https URLs (put TLS in front, e.g. compose.yml's Caddy)`,
      ),
    );
  // Relative to the URL's path too: a bot served under a path prefix behind a proxy.
  const root = url.href.endsWith('/') ? url.href : `${url.href}/`;
  const paths = ['healthz', ...(config.oauth ? ['slack/install'] : [])];
  for (const path of paths) {
    const target = new URL(path, root).toString();
    try {
      const response = await fetch(target, { redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
      await response.body?.cancel();
      checks.push(
        response.status === 200
          ? pass(name, `${target} answers 200`)
          : fail(name, `${target} answers ${response.status}: route it to the bot's PORT (${config.port})`),
      );
    } catch (error) {
      checks.push(
        fail(name, `${target} does not answer (${reasonOf(error)}): check DNS, TLS and the proxy in front`),
      );
    }
  }
  return checks;
}

function hostOf(redisUrl: string): string {
  try {
    const url = new URL(redisUrl);
    return `${url.hostname}:${url.port || '6379'}`;
  } catch {
    return 'REDIS_URL';
  }
}

function reasonOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } })?.cause?.code;
  if (typeof cause === 'string') return cause;
  if (error instanceof Error && error.name === 'TimeoutError') return 'timed out';
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.message.slice(0, 120) : 'error';
}
