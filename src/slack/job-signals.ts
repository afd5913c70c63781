import { describeError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import type { Outbox } from '../delivery/ports.js';
import { type JobRecord, shownOrder } from '../jobs/domain/job.js';
import { JOB_SIGNALS, type JobSignal, wantedSignal } from '../jobs/domain/job-signal.js';
import { SIGNAL_EMOJI } from './copy/status-emoji.js';

/** The emoji of each signal on a job's source message. */
export const SIGNAL_REACTIONS: Readonly<Record<JobSignal, string>> = SIGNAL_EMOJI;

/**
 * Keeps one emoji on the message that started a job, following the job: 👀 while it runs, ✅ with its PR,
 * ⚠️ when it failed or changed nothing. Each change owes the source message its reactions as one delivery
 * per message whose latest state wins (the record's version orders states across replicas): the outbox
 * removes the other signals before adding the wanted one, so there is never two at once, and a stale state
 * can never come back. Only the source message is touched, never the 👀 "forwarded" marks on follow-ups.
 */
export class JobSignalFollower {
  constructor(
    private readonly outbox: Outbox,
    private readonly logger: Logger,
  ) {}

  /** A job changed (card refresh, terminal reply, notice): owe its emoji the latest state. Never throws. */
  jobChanged(record: JobRecord): void {
    const wanted = wantedSignal(record);
    if (!wanted || !record.sourceTs) return;
    this.outbox
      .owe({
        key: `signal:${record.channelId}:${record.sourceTs}`,
        target: {
          kind: 'reactions',
          channel: record.channelId,
          ts: record.sourceTs,
          names: [SIGNAL_REACTIONS[wanted]],
          managed: shownBefore(record, wanted).map((signal) => SIGNAL_REACTIONS[signal]),
        },
        payload: null,
        priority: 'reply',
        seq: shownOrder(record),
      })
      .catch((error: unknown) =>
        this.logger.warn({ jobId: record.jobId, error: describeError(error) }, 'could not owe the job emoji'),
      );
  }
}

/**
 * The signals this message may show now: a first run still running has shown nothing else (no removal
 * calls); a first run that ended may show 👀; after a follow-up any of them may be up.
 */
function shownBefore(record: JobRecord, wanted: JobSignal): JobSignal[] {
  if (record.generation > 1) return [...JOB_SIGNALS];
  return wanted === 'running' ? ['running'] : ['running', wanted];
}
