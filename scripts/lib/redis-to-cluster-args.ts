import { readFileSync } from 'node:fs';

/**
 * Where `npm run redis:to-cluster` reads its two Redis URLs: `REDIS_FROM_URL`/`REDIS_TO_URL`, a file
 * (`--from-file`, `--to-file`: its first line), or `--from`/`--to` only for a URL without a password. npm
 * prints the command it runs, and a command line stays in shell history and the process list, so a password
 * there is refused, with where to put it instead, and never repeated.
 */
export interface UrlOptions {
  from?: string;
  to?: string;
  'from-file'?: string;
  'to-file'?: string;
}

export type ResolvedUrls = { ok: true; from: string; to: string } | { ok: false; problem: string };

const isRedisUrl = (url: string) => /^rediss?:\/\/[^/]/.test(url);

function hasPassword(url: string): boolean {
  try {
    return new URL(url).password !== '';
  } catch {
    // Not parsed: look for userinfo the cheap way (`user:pass@` before the host).
    const rest = url.replace(/^rediss?:\/\//, '');
    const at = rest.indexOf('@');
    return at >= 0 && rest.slice(0, at).includes(':');
  }
}

function urlOf(
  side: 'from' | 'to',
  options: UrlOptions,
  env: NodeJS.ProcessEnv,
  readFile: (path: string) => string,
): { url?: string; problem?: string } {
  const variable = side === 'from' ? 'REDIS_FROM_URL' : 'REDIS_TO_URL';
  const flag = options[side];
  if (flag !== undefined) {
    if (hasPassword(flag))
      return {
        problem: `--${side} holds a password, and a command line is printed by npm and kept in shell history, so I won't use it. Set ${variable} in the environment, or put the URL in a file and pass --${side}-file <path>; then change that password if this command was shared.`,
      };
    return { url: flag.trim() };
  }
  const file = options[`${side}-file`];
  if (file !== undefined) {
    try {
      return { url: (readFile(file).split('\n')[0] ?? '').trim() };
    } catch {
      return { problem: `--${side}-file: I couldn't read ${file}. Check the path and that it is readable.` };
    }
  }
  const value = env[variable]?.trim();
  return value ? { url: value } : {};
}

export function resolveUrls(
  options: UrlOptions,
  env: NodeJS.ProcessEnv,
  readFile: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): ResolvedUrls {
  const from = urlOf('from', options, env, readFile);
  if (from.problem) return { ok: false, problem: from.problem };
  const to = urlOf('to', options, env, readFile);
  if (to.problem) return { ok: false, problem: to.problem };
  if (!from.url || !isRedisUrl(from.url))
    return {
      ok: false,
      problem:
        'The single Redis node is missing or not a redis:// URL: set REDIS_FROM_URL (or --from-file, or --from without a password), e.g. redis://old:6379',
    };
  if (!to.url || !isRedisUrl(to.url))
    return {
      ok: false,
      problem:
        'The Redis Cluster node is missing or not a redis:// URL: set REDIS_TO_URL (or --to-file, or --to without a password), e.g. redis://node1:7000',
    };
  return { ok: true, from: from.url, to: to.url };
}

/** The passwords of both URLs, as written and decoded: what the script's output must never show. */
export function passwordsOf(...urls: string[]): string[] {
  const out: string[] = [];
  for (const url of urls) {
    try {
      const password = new URL(url).password;
      if (password) out.push(password, decodeURIComponent(password));
    } catch {
      // Not a URL: nothing to hide.
    }
  }
  return out;
}
