import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { JobRecord } from '../domain/job.js';
import type { JobStore } from '../ports.js';
import { type PullRequestRef, type PullRequestState, parsePullRequestLink } from './pull-request.js';

/**
 * A small key-value store with expiry (JSON strings): the state backend's, shared by replicas with Redis.
 * Writes are last-writer-wins: two merges of the same page racing may keep the older one (rare, harmless).
 */
export interface PullRequestIndexStore {
  put(key: string, json: string, ttlMs: number): Promise<void>;
  get(key: string): Promise<string | undefined>;
}

/** How long the index remembers a PR's job and a page's last change. */
export const INDEX_TTL_MS = 90 * 24 * 60 * 60 * 1000;
/** Changed files indexed per merged PR, and path suffixes per file: a bounded number of writes per merge. */
export const MAX_INDEXED_FILES = 50;
const MAX_SUFFIXES = 4;
const MAX_FILE_CHARS = 300;
/** Files that are docs pages: their path, without this extension, is (a suffix of) the page's path. */
const PAGE_FILE = /\.(md|mdx|markdown|rst|adoc)$/i;

/** A PR of one of our jobs, as an unfurl shows it in the job's own channel (where its card lives). */
export interface PullRequestSummary {
  kind: 'job';
  jobId: string;
  prLink: string;
  requesterId: string;
  channelId: string;
  /** The job's status on the platform (`completed`, `active`…). */
  jobStatus: string;
  prompt: string;
  /** The PR's last state read on GitHub (GITHUB_TOKEN), or null when it is not followed or not read yet. */
  pr: PullRequestState | null;
  /** Followed on GitHub (GITHUB_TOKEN): `pr` is null only until the first read. */
  followed: boolean;
  teamId: string | null;
}

/**
 * The same PR pasted anywhere else: its number and state only. The job's instruction, requester, id and
 * thread stay in its own channel, as `/docs-agent status` keeps them there.
 */
export interface PullRequestStateOnly {
  kind: 'state';
  prLink: string;
  /** `owner/repo` as the pasted link spells it. */
  repo: string;
  number: number;
  pr: PullRequestState | null;
  followed: boolean;
  teamId: string | null;
}

/** What a PR link of ours may show where it was pasted. */
export type PullRequestView = PullRequestSummary | PullRequestStateOnly;

/**
 * Where a preview is seen decides what it shows: everything in the job's own channel, the PR's state only
 * anywhere else (another channel, a DM with the bot, a group DM), whoever pasted it, since every member of
 * the conversation sees the preview.
 */
export function seenFrom(
  summary: PullRequestSummary,
  ref: PullRequestRef,
  channelId: string,
): PullRequestView {
  if (summary.channelId === channelId) return summary;
  return {
    kind: 'state',
    prLink: summary.prLink,
    repo: `${ref.owner}/${ref.repo}`,
    number: ref.number,
    pr: summary.pr,
    followed: summary.followed,
    teamId: summary.teamId,
  };
}

interface PageChangeEntry {
  prLink: string;
  mergedAt: number;
  jobId: string;
  requesterId: string;
  /** The job's channel: who asked is shown only there (absent in entries written before). */
  channelId?: string;
}

/**
 * Which job a PR link belongs to (recorded when a job's PR appears) and which merged PR of ours last
 * changed a docs page (from the files a followed PR changed, recorded at its merge).
 */
export class PullRequestIndex {
  constructor(
    private readonly o: {
      store: PullRequestIndexStore;
      jobs: Pick<JobStore, 'getJob'>;
      /** GITHUB_WEB_URL: only PR links on this host are ours. */
      webUrl: string;
      logger: Logger;
      ttlMs?: number;
    },
  ) {}

  private get ttlMs(): number {
    return this.o.ttlMs ?? INDEX_TTL_MS;
  }

  /** A job's PR link appeared (its terminal reply): the link now finds the job. Never throws. */
  async remember(record: Pick<JobRecord, 'jobId'>, prLink: string): Promise<void> {
    const ref = parsePullRequestLink(prLink, this.o.webUrl);
    if (!ref) return;
    await this.o.store.put(prKey(ref), JSON.stringify({ jobId: record.jobId }), this.ttlMs).catch((error) => {
      this.o.logger.warn({ jobId: record.jobId, error: describeError(error) }, 'could not index the PR');
    });
  }

  /** A followed PR merged: each docs file it changed now names it as the page's last change. */
  async rememberMerged(record: JobRecord, pr: PullRequestState): Promise<void> {
    const prLink = record.pullRequest?.url ?? record.prLink;
    if (!prLink || pr.mergedAt === null) return;
    const entry: PageChangeEntry = {
      prLink,
      mergedAt: pr.mergedAt,
      jobId: record.jobId,
      requesterId: record.requesterId,
      channelId: record.channelId,
    };
    const project = record.projectId ?? '';
    const keys = new Set(
      (pr.files ?? []).slice(0, MAX_INDEXED_FILES).flatMap((file) => pageKeysOfFile(file)),
    );
    try {
      for (const key of keys) {
        const seen = parseEntry(await this.o.store.get(pageKey(project, key)));
        if (seen && seen.mergedAt > entry.mergedAt) continue;
        await this.o.store.put(pageKey(project, key), JSON.stringify(entry), this.ttlMs);
      }
    } catch (error) {
      this.o.logger.warn(
        { jobId: record.jobId, error: describeError(error) },
        'could not index changed pages',
      );
    }
  }

  /** The last merged PR of one of our jobs that changed `/path`, when known. */
  async lastMerged(projectId: string, defaultProjectId: string, path: string) {
    const key = path.replace(/^\/+/, '');
    if (!key) return undefined;
    // Records of the default project may carry no projectId (written before several projects).
    const project = projectId === defaultProjectId ? '' : projectId;
    const found = parseEntry(await this.o.store.get(pageKey(project, key)));
    return (
      found ?? (project === '' ? parseEntry(await this.o.store.get(pageKey(projectId, key))) : undefined)
    );
  }

  /**
   * The job behind a PR link of ours as it may be shown in `where.channelId` (`seenFrom`), or undefined (not
   * a PR link, not one of our jobs, or forgotten).
   */
  async describe(link: string, where: { channelId: string }): Promise<PullRequestView | undefined> {
    const ref = parsePullRequestLink(link, this.o.webUrl);
    if (!ref) return undefined;
    const json = await this.o.store.get(prKey(ref));
    const jobId = json ? (JSON.parse(json) as { jobId?: unknown }).jobId : undefined;
    if (typeof jobId !== 'string') return undefined;
    const record = await this.o.jobs.getJob(jobId);
    if (!record) return undefined;
    const summary: PullRequestSummary = {
      kind: 'job',
      jobId,
      prLink: record.pullRequest?.url ?? record.prLink ?? link,
      requesterId: record.requesterId,
      channelId: record.channelId,
      jobStatus: record.status,
      prompt: record.prompt,
      pr: record.pullRequest?.last ?? null,
      followed: record.pullRequest !== undefined,
      teamId: record.teamId,
    };
    return seenFrom(summary, ref, where.channelId);
  }
}

/** Owner and repo are case-insensitive on GitHub: one key however the link spells them. */
const prKey = (ref: PullRequestRef) =>
  `pr:${ref.owner.toLowerCase()}/${ref.repo.toLowerCase()}#${ref.number}`;
const pageKey = (project: string, key: string) => `page:${project}:${key}`;

/**
 * The page paths a changed file may be served at: its path without the extension (and without a final
 * `index`/`README`), and its shorter suffixes (`docs/guides/auth.mdx` → `docs/guides/auth`,
 * `guides/auth`, `auth`), since where the docs root sits in the repository is not known here.
 */
export function pageKeysOfFile(file: string): string[] {
  if (file.length > MAX_FILE_CHARS || !PAGE_FILE.test(file)) return [];
  const stem = file.replace(PAGE_FILE, '').replace(/(^|\/)(index|readme)$/i, '');
  const parts = stem.split('/').filter((part) => part !== '' && part !== '.' && part !== '..');
  const keys: string[] = [];
  for (let i = 0; i < parts.length && keys.length < MAX_SUFFIXES; i++) keys.push(parts.slice(i).join('/'));
  return keys;
}

function parseEntry(json: string | undefined): PageChangeEntry | undefined {
  if (!json) return undefined;
  try {
    const value = JSON.parse(json) as Partial<PageChangeEntry>;
    if (typeof value.prLink !== 'string' || typeof value.mergedAt !== 'number') return undefined;
    if (typeof value.jobId !== 'string' || typeof value.requesterId !== 'string') return undefined;
    if (value.channelId !== undefined && typeof value.channelId !== 'string') return undefined;
    return value as PageChangeEntry;
  } catch {
    return undefined;
  }
}
