import type { JobRecord } from '../domain/job.js';
import { OWNER, REPO } from '../pull-requests/pull-request.js';
import type { RepositoryRef } from './ports.js';

/**
 * The GitHub repository a job works on, from the platform's `source.repository` (its format is not
 * specified): a link on the configured web host (`https://github.com/acme/docs`, `.git` optional), an SSH
 * remote on that host (`git@github.com:acme/docs.git`) or a bare `acme/docs`. Anything else is not read (the
 * job is polled as without a token). Platform text is outside text: checked strictly, never interpolated.
 */
export function repositoryOf(repository: string | null, webUrl: string): RepositoryRef | undefined {
  if (!repository || repository.length > 300) return undefined;
  let host: string;
  try {
    host = new URL(webUrl).host;
  } catch {
    return undefined;
  }
  const value = repository.trim();
  let path: string | undefined;
  if (/^[^/:@\s]+\/[^/:@\s]+$/.test(value)) path = value;
  else if (value.startsWith(`git@${host}:`)) path = value.slice(`git@${host}:`.length);
  else {
    try {
      const url = new URL(value);
      const base = new URL(webUrl);
      if (url.host === base.host && !url.username && !url.password && /^https?:$/.test(url.protocol)) {
        const basePath = base.pathname.replace(/\/+$/, '');
        if (url.pathname.startsWith(`${basePath}/`)) path = url.pathname.slice(basePath.length + 1);
      }
    } catch {
      return undefined;
    }
  }
  if (!path) return undefined;
  const [owner, rawRepo, ...rest] = path.replace(/\/+$/, '').split('/');
  if (!owner || !rawRepo || rest.length > 0) return undefined;
  const repo = rawRepo.endsWith('.git') ? rawRepo.slice(0, -4) : rawRepo;
  if (!OWNER.test(owner) || owner.includes('--') || !REPO.test(repo) || repo === '.' || repo === '..')
    return undefined;
  return { owner, repo };
}

/** One key per repository (GitHub names are case-insensitive). */
export function repositoryKey(ref: RepositoryRef): string {
  return `${ref.owner}/${ref.repo}`.toLowerCase();
}

export interface WatchedRepository {
  ref: RepositoryRef;
  /** The earliest activeSince of the repository's watched jobs. */
  since: number;
}

/** The repositories on the GitHub host that watched jobs are in, by key. */
export function watchedRepositories(
  watched: Pick<JobRecord, 'repository' | 'watching' | 'activeSince'>[],
  webUrl: string,
): Map<string, WatchedRepository> {
  const repositories = new Map<string, WatchedRepository>();
  for (const record of watched) {
    const ref = repositoryOf(record.repository, webUrl);
    if (!ref || !record.watching) continue;
    const key = repositoryKey(ref);
    const known = repositories.get(key);
    repositories.set(key, { ref, since: Math.min(known?.since ?? record.activeSince, record.activeSince) });
  }
  return repositories;
}
