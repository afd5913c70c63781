import { describeError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import type { JobRecord } from '../jobs/domain/job.js';
import { JOB_SIGNALS, type JobSignal, wantedSignal } from '../jobs/domain/job-signal.js';
import type { JobStore } from '../jobs/ports.js';
import type { SlackGateway } from './slack-gateway.js';

/** The emoji of each signal on a job's source message. */
export const SIGNAL_REACTIONS: Readonly<Record<JobSignal, string>> = {
  running: 'eyes',
  pull_request: 'white_check_mark',
  problem: 'warning',
};

/**
 * The Slack calls behind job signals, one method per kind of call, all through the gateway
 * (paced, retried; `already_reacted` and `no_reaction` count as done), so a delivery path can take them over.
 */
export class JobSignalCalls {
  constructor(private readonly gateway: Pick<SlackGateway, 'addReaction' | 'removeReaction'>) {}

  addReaction(channelId: string, ts: string, name: string): Promise<void> {
    return this.gateway.addReaction(channelId, ts, name);
  }

  removeReaction(channelId: string, ts: string, name: string): Promise<void> {
    return this.gateway.removeReaction(channelId, ts, name);
  }
}

/** Rounds of "show, then re-read" per change before leaving it to the next change (other replicas act too). */
const MAX_ROUNDS = 3;

/**
 * Keeps one emoji on the message that started a job, following the job: 👀 while it runs, ✅ with its PR,
 * ⚠️ when it failed or changed nothing. Told of every job change (`onJobChanged`), it re-reads the record
 * and shows what the latest state asks for: stale events and other replicas' changes cannot leave an old
 * emoji, because whoever acts re-reads after acting and corrects until the record and the emoji agree.
 * Only the source message is touched, never the 👀 "forwarded" marks on follow-ups.
 */
export class JobSignalFollower {
  /** What this process last showed per job, keyed by generation: repeated card refreshes cost nothing. */
  private readonly shown = new Map<string, string>();
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private closed = false;

  constructor(
    private readonly calls: JobSignalCalls,
    private readonly store: Pick<JobStore, 'getJob'>,
    private readonly logger: Logger,
    private readonly maxRemembered = 10_000,
  ) {}

  /** A job changed (card refresh, terminal reply, notice): bring its emoji up to date. Never throws. */
  jobChanged(record: JobRecord): void {
    if (this.closed || !record.sourceTs) return;
    const jobId = record.jobId;
    if (this.running.has(jobId)) {
      this.again.add(jobId);
      return;
    }
    const run = this.follow(jobId).finally(() => this.running.delete(jobId));
    this.running.set(jobId, run);
  }

  /** Resolves when every queued change has been shown (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running.values()]);
  }

  /** Shutdown: no new work; running updates finish. */
  async close(): Promise<void> {
    this.closed = true;
    await this.idle();
  }

  private async follow(jobId: string): Promise<void> {
    do {
      this.again.delete(jobId);
      try {
        await this.update(jobId);
      } catch (error) {
        this.logger.warn({ jobId, error: describeError(error) }, 'could not update the job emoji');
      }
    } while (this.again.has(jobId) && !this.closed);
  }

  private async update(jobId: string): Promise<void> {
    let record = await this.store.getJob(jobId);
    for (let round = 0; round < MAX_ROUNDS && record; round++) {
      const wanted = wantedSignal(record);
      if (!wanted || this.shown.get(jobId) === `${record.generation}:${wanted}`) return;
      await this.show(record, wanted);
      // Another replica may have saved a newer state meanwhile (and shown it before this call landed).
      record = await this.store.getJob(jobId);
    }
  }

  /** Removes every other signal this job may have shown, then shows `wanted`: never two at once. */
  private async show(record: JobRecord, wanted: JobSignal): Promise<void> {
    const channelId = record.channelId;
    const ts = record.sourceTs!;
    // A first generation still running has shown nothing else; after that any other signal may be up.
    const fresh = record.generation <= 1 && wanted === 'running';
    const others = fresh
      ? []
      : JOB_SIGNALS.filter((s) => s !== wanted && !(record.generation <= 1 && s !== 'running'));
    for (const signal of others) await this.calls.removeReaction(channelId, ts, SIGNAL_REACTIONS[signal]);
    await this.calls.addReaction(channelId, ts, SIGNAL_REACTIONS[wanted]);
    this.shown.delete(record.jobId);
    this.shown.set(record.jobId, `${record.generation}:${wanted}`);
    if (this.shown.size > this.maxRemembered) this.shown.delete(this.shown.keys().next().value!);
  }
}
