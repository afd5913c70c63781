import { createLogger } from '../../src/common/logger.js';
import { newJobRecord } from '../../src/jobs/domain/job.js';
import type {
  NewestPullRequest,
  NewestPullRequestsFeed,
  RepositoryRef,
} from '../../src/jobs/doorbell/ports.js';
import { PullRequestDoorbell } from '../../src/jobs/doorbell/pull-request-doorbell.js';
import { createMemoryJobStore } from '../../src/state/keyv-job-store.js';
import { MemoryDoorbellLeases } from '../../src/state/memory/memory-doorbell-leases.js';

/** The doorbell's unit-test world: a job store, a scripted GitHub, memory leases and a recorded poll queue. */
const logger = createLogger({ level: 'silent', secrets: [] });
const WEB = 'https://github.com';
export const DOORBELL_TEST_TIMING = { intervalMs: 2_000, maxReadsPerSecond: 5, refreshMs: 0 };
const timing = DOORBELL_TEST_TIMING;

/** GitHub's pulls list per repository: an ETag per answer, 304 for a matching one; every read recorded. */
export class ScriptedGitHub implements NewestPullRequestsFeed {
  readonly pulls = new Map<string, NewestPullRequest[]>();
  readonly reads: Array<{ repo: string; etag: string | null; status: 200 | 304 }> = [];
  failWith: Error | undefined;

  open(repo: string, number: number, createdAt: number, headRef: string | null = null): void {
    this.pulls.set(repo, [{ number, createdAt, headRef }, ...(this.pulls.get(repo) ?? [])]);
  }

  async newest(ref: RepositoryRef, etag: string | null) {
    const repo = `${ref.owner}/${ref.repo}`;
    if (this.failWith) throw this.failWith;
    const newest = (this.pulls.get(repo) ?? []).slice(0, 1);
    const current = `"${repo}#${newest[0]?.number ?? 0}"`;
    const status = etag === current ? 304 : 200;
    this.reads.push({ repo, etag, status });
    return status === 304 ? { changed: false as const } : { changed: true as const, etag: current, newest };
  }
}

export async function doorbellWorld(now: { t: number }) {
  const store = createMemoryJobStore(logger, () => now.t);
  const job = async (jobId: string, repository: string, activeSince: number) => {
    const record = newJobRecord(
      {
        jobId,
        teamId: null,
        channelId: 'C1',
        threadTs: '1.1',
        cardTs: '1.1',
        requesterId: 'U1',
        prompt: 'p',
        origin: 'command',
        status: 'active',
        repository,
        ref: null,
        model: null,
        prLink: null,
      },
      activeSince,
    );
    await store.saveJob(record);
    return record;
  };
  const github = new ScriptedGitHub();
  const leases = new MemoryDoorbellLeases(() => now.t);
  const polled: string[] = [];
  const doorbell = (holder: string) =>
    new PullRequestDoorbell({
      feed: github,
      leases,
      store,
      queue: { schedule: async (jobId, delay) => void polled.push(`${jobId}@${delay}`) },
      clock: { now: () => now.t },
      logger,
      timing,
      webUrl: WEB,
      holder,
    });
  /** The poll queue ran a job's poll: still running (its record saved again), or ended with its PR. */
  const pollRan = async (jobId: string, prLink?: string) => {
    const record = await store.getJob(jobId);
    if (!record) throw new Error(`no job ${jobId}`);
    record.updatedAt = now.t;
    if (prLink) {
      record.watching = false;
      record.status = 'completed';
      record.prLink = prLink;
    }
    await store.saveJob(record);
  };
  /** `count` more reads by `reader`, `everyMs` apart. */
  const ticks = async (reader: { tick(): Promise<void> }, count: number, everyMs: number) => {
    for (let i = 0; i < count; i++) {
      now.t += everyMs;
      await reader.tick();
    }
  };
  return { store, job, github, leases, polled, doorbell, pollRan, ticks };
}
