import { z } from 'zod';
import { apiUrl, httpUrl, integer, isLoopbackHost, optionalText } from './config-schemas.js';

/** Optional GitHub access (issue 23): follows each job's pull request to its merge. */
export interface GithubConfig {
  /** Absent: no following; "did it work?" counts from the PR's day, as before. */
  token: string | undefined;
  /**
   * GITHUB_TOKEN_OWNERS (lower case): OAuth mode uses GITHUB_TOKEN for tenants only for repositories of these
   * owners; unset there, tenants get no operator token. In a runtime's config: the owners its token may read
   * (absent: any, single-workspace mode).
   */
  owners?: string[];
  /** REST API base: https://api.github.com, or GHES's https://<host>/api/v3. */
  apiUrl: string;
  /** Where PR links live: only links on this host are followed. */
  webUrl: string;
  followIntervalMs: number;
  followMaxIntervalMs: number;
  followDays: number;
  /** The doorbell (issue 28): each repository with watched jobs is read this often; 0 turns it off. */
  doorbellIntervalMs: number;
  /** Doorbell reads per second by all replicas together (more repositories stretch the interval). */
  doorbellReadsPerSecond: number;
}

const noTrailingSlash = (value: string) => value.replace(/\/+$/, '');

export const githubEnvFields = {
  GITHUB_TOKEN: optionalText.pipe(
    z
      .string()
      .regex(
        /^[A-Za-z0-9_]+$/,
        'must be a GitHub token (github_pat_…, ghp_…, ghs_…): letters, digits and _ only',
      )
      .min(20, 'is too short for a GitHub token')
      .optional(),
  ),
  GITHUB_TOKEN_OWNERS: optionalText.pipe(
    z
      .string()
      .regex(
        /^\s*[A-Za-z0-9][A-Za-z0-9-]{0,38}\s*(,\s*[A-Za-z0-9][A-Za-z0-9-]{0,38}\s*)*$/,
        'must be GitHub users or organisations, comma-separated (org1,org2)',
      )
      .optional(),
  ),
  GITHUB_API_URL: optionalText
    .pipe(apiUrl.optional())
    .transform((v) => noTrailingSlash(v ?? 'https://api.github.com')),
  GITHUB_WEB_URL: optionalText
    .pipe(httpUrl.optional())
    .transform((v) => noTrailingSlash(v ?? 'https://github.com')),
  PR_FOLLOW_INTERVAL_MS: integer(5 * 60 * 1000, 10),
  PR_FOLLOW_MAX_INTERVAL_MS: integer(60 * 60 * 1000, 10),
  PR_FOLLOW_DAYS: integer(30, 1, 180),
  PR_DOORBELL_INTERVAL_MS: integer(2_000, 0, 60 * 60 * 1000).refine(
    (v) => v === 0 || v >= 500,
    'must be 0 (off) or at least 500',
  ),
  PR_DOORBELL_READS_PER_SECOND: integer(5, 1, 15),
};

type GithubEnv = z.infer<z.ZodObject<typeof githubEnvFields>>;

export function githubConfigOf(e: GithubEnv): GithubConfig {
  return {
    token: e.GITHUB_TOKEN,
    ...(e.GITHUB_TOKEN_OWNERS
      ? { owners: e.GITHUB_TOKEN_OWNERS.split(',').map((o) => o.trim().toLowerCase()) }
      : {}),
    apiUrl: e.GITHUB_API_URL,
    webUrl: e.GITHUB_WEB_URL,
    followIntervalMs: e.PR_FOLLOW_INTERVAL_MS,
    followMaxIntervalMs: e.PR_FOLLOW_MAX_INTERVAL_MS,
    followDays: e.PR_FOLLOW_DAYS,
    doorbellIntervalMs: e.PR_DOORBELL_INTERVAL_MS,
    doorbellReadsPerSecond: e.PR_DOORBELL_READS_PER_SECOND,
  };
}

/**
 * Checked on the raw environment, like POLL_*: PR_FOLLOW_MAX_INTERVAL_MS below PR_FOLLOW_INTERVAL_MS, and a
 * GitHub API on another host than the PR links (the token would read one server's repositories for links
 * to another's).
 */
export function githubProblems(env: NodeJS.ProcessEnv): string[] {
  const problems: string[] = [];
  const min = Number(env.PR_FOLLOW_INTERVAL_MS?.trim() || 300_000);
  const max = Number(env.PR_FOLLOW_MAX_INTERVAL_MS?.trim() || 3_600_000);
  if (Number.isFinite(min) && Number.isFinite(max) && max < min)
    problems.push(`PR_FOLLOW_MAX_INTERVAL_MS must be at least PR_FOLLOW_INTERVAL_MS (${min})`);
  const api = hostOf(env.GITHUB_API_URL?.trim() || 'https://api.github.com');
  const web = hostOf(env.GITHUB_WEB_URL?.trim() || 'https://github.com');
  if (api && web && !hostsAgree(api, web))
    problems.push(
      `GITHUB_API_URL (${api}) and GITHUB_WEB_URL (${web}) must name the same GitHub: api.github.com with github.com, or one GitHub Enterprise host (https://<host>/api/v3 with https://<host>)`,
    );
  return problems;
}

function hostOf(value: string): string | undefined {
  try {
    return new URL(value).hostname.toLowerCase();
  } catch {
    return undefined; // the field's own check names it
  }
}

/** github.com's API is api.github.com; GHES serves both on one host; a loopback API is a local proxy or fake. */
function hostsAgree(api: string, web: string): boolean {
  if (isLoopbackHost(api)) return true;
  if (web === 'github.com' || web === 'www.github.com') return api === 'api.github.com';
  return api === web;
}
