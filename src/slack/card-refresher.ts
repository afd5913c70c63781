import { backoffDelay } from '../common/backoff.js';
import { describeError, errorCode } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import type { JobRecord } from '../jobs/domain/job.js';
import type { JobStore } from '../jobs/ports.js';
import type { SlackMessage } from './messages/types.js';
import { isPermanentSlackError } from './slack-errors.js';
import type { SlackGateway } from './slack-gateway.js';

export interface CardRefresherOptions {
  /** Retries stop this long after a card's latest state was handed in (default 6 h, a job's lifetime). */
  giveUpAfterMs?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  random?: () => number;
}

interface Pending {
  record: JobRecord;
  now: number;
  /** What the card last showed, as far as this process knows (see `shown`). */
  sent: string | undefined;
  since: number;
  failures: number;
}

/**
 * Brings job cards up to date in the background: nobody awaits a refresh (a docs poll never waits on
 * Slack), refreshes of one card coalesce (the latest state wins, at most one chat.update in flight per
 * card) and go at the lowest priority, and a refresh that fails is retried until the card's last state
 * reached Slack, the error is permanent (message or channel gone), the process shuts down or the job's
 * lifetime has passed. Before and after each update the stored record is read: with several replicas the
 * one that sent last also sends whatever another replica stored since, so a card never stays stale.
 */
export class CardRefresher {
  private readonly pending = new Map<string, Pending>();
  private closed = false;

  constructor(
    private readonly gateway: SlackGateway,
    private readonly store: JobStore,
    private readonly logger: Logger,
    private readonly render: (record: JobRecord, now: number) => SlackMessage,
    private readonly options: CardRefresherOptions = {},
  ) {}

  /** Queues the card of `record` to show this state; returns at once. */
  refresh(record: JobRecord, now: number): void {
    if (this.closed) return;
    const key = `${record.channelId}:${record.cardTs}`;
    const copy = structuredClone(record);
    const entry = this.pending.get(key);
    if (entry) {
      entry.record = copy;
      entry.now = now;
      entry.since = Date.now();
      return;
    }
    const fresh: Pending = { record: copy, now, sent: undefined, since: Date.now(), failures: 0 };
    this.pending.set(key, fresh);
    void this.deliver(key, fresh);
  }

  /** Cards with a refresh queued or in flight. */
  get backlog(): number {
    return this.pending.size;
  }

  /** Resolves when no refresh is queued or in flight (on shutdown, before the gateway closes). */
  async idle(): Promise<void> {
    while (this.pending.size > 0 && !this.closed) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  /** Stops retrying (on shutdown); the gateway's close drops what is queued there. */
  close(): void {
    this.closed = true;
  }

  private async deliver(key: string, entry: Pending): Promise<void> {
    try {
      for (;;) {
        if (this.closed) return;
        const target = await this.latest(entry);
        const shown = cardState(target.record);
        if (shown === entry.sent) return;
        try {
          await this.gateway.update(
            target.record.channelId,
            target.record.cardTs,
            this.render(target.record, target.now),
            'refresh',
          );
          entry.sent = shown;
          entry.failures = 0;
        } catch (error) {
          if (!this.retryable(error, entry)) {
            this.logger.warn(
              { jobId: target.record.jobId, error: describeError(error) },
              'could not update job card',
            );
            return;
          }
          entry.failures += 1;
          const delay = backoffDelay(entry.failures - 1, {
            baseMs: this.options.retryBaseMs ?? 1_000,
            maxMs: this.options.retryMaxMs ?? 30_000,
            random: this.options.random ?? Math.random,
          });
          await new Promise((resolve) => setTimeout(resolve, delay).unref());
        }
      }
    } catch (error) {
      this.logger.warn({ key, error: describeError(error) }, 'job card refresh stopped');
    } finally {
      this.pending.delete(key);
    }
  }

  /** The newest of what this process was handed and what the store holds (another replica's poll). */
  private async latest(entry: Pending): Promise<{ record: JobRecord; now: number }> {
    const stored = await this.store.getJob(entry.record.jobId).catch(() => undefined);
    const mine = entry.record;
    if (
      stored &&
      stored.cardTs === mine.cardTs &&
      stored.updatedAt > mine.updatedAt &&
      cardState(stored) !== cardState(mine)
    ) {
      entry.record = stored;
      entry.now = stored.updatedAt;
    }
    return { record: entry.record, now: entry.now };
  }

  private retryable(error: unknown, entry: Pending): boolean {
    if (this.closed) return false;
    const code = errorCode(error) ?? 'request_failed';
    if (code === 'shutting_down' || isPermanentSlackError(code)) return false;
    return Date.now() - entry.since < (this.options.giveUpAfterMs ?? 6 * 60 * 60 * 1000);
  }
}

/** What a job card shows, minus the running time (a refresh is never sent for the clock alone). */
export function cardState(record: JobRecord): string {
  return JSON.stringify([
    record.status,
    record.repository,
    record.ref,
    record.model,
    record.prLink,
    record.watching,
    record.watchEnded,
    record.generation,
    record.activeSince,
  ]);
}
