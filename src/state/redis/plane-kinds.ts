import type { QueueOptions, WorkerOptions } from 'bullmq';
import { POLL_LOCK_DURATION_MS, POLL_RETRY_DELAY_MS, POLL_STALLED_INTERVAL_MS } from './bullmq-poll-queue.js';
import { cronerRepeatStrategy } from './bullmq-weekly-scheduler.js';

/**
 * The deployment's shared queues (issue 34): one BullMQ queue each, the tenant in every job's data. Every
 * kind is taken by the fair take (`plane-fair-worker.ts`, issue 43 §4): a tenant at its cap or ceiling is
 * skipped, never taken and moved back. The job schedulers of weekly posts and alert checks are renewed
 * when the fair take hands out their job (`plane-schedule-renewal.ts`), as BullMQ's own take did.
 */
export const PLANE_KINDS = ['polls', 'pr-follow', 'impact', 'weekly', 'alerts'] as const;
export type PlaneKind = (typeof PLANE_KINDS)[number];

/** What a kind's one Queue and one Worker per replica are made with (connection and prefix added by the plane). */
export interface PlaneKindOptions {
  queue: Omit<QueueOptions, 'connection' | 'prefix'>;
  worker: Omit<WorkerOptions, 'connection' | 'prefix' | 'autorun'>;
}

/** Cap of BullMQ's own retries of a poll that failed outside the handler (as BullmqPollQueue). */
const POLL_QUEUE_RETRY_MAX_MS = 5_000;
const FOREVER = 1_000_000;

const pollLike = (concurrency: number): PlaneKindOptions => ({
  queue: {
    defaultJobOptions: {
      removeOnComplete: true,
      removeOnFail: true,
      attempts: FOREVER,
      backoff: { type: 'poll-retry' },
    },
  },
  worker: {
    concurrency,
    lockDuration: POLL_LOCK_DURATION_MS,
    runRetryDelay: POLL_RETRY_DELAY_MS,
    stalledInterval: POLL_STALLED_INTERVAL_MS,
    maxStalledCount: FOREVER,
    settings: {
      backoffStrategy: (attemptsMade: number) =>
        Math.min(
          POLL_QUEUE_RETRY_MAX_MS,
          POLL_RETRY_DELAY_MS * 2 ** Math.min(Math.max(0, attemptsMade - 1), 8),
        ),
    },
  },
});

/**
 * Per replica, for every tenant together: the concurrencies are the replica's, the timings each kind's own
 * (the same as when each tenant had its queues: see the per-tenant classes for why).
 */
export function planeKindOptions(
  concurrency: Partial<Record<PlaneKind, number>> = {},
  timings?: PlaneTimings,
): Record<PlaneKind, PlaneKindOptions> {
  return withTimings(timings, {
    polls: pollLike(concurrency.polls ?? 32),
    'pr-follow': pollLike(concurrency['pr-follow'] ?? 8),
    impact: {
      queue: {},
      worker: { concurrency: concurrency.impact ?? 4, maxStalledCount: FOREVER },
    },
    weekly: {
      queue: { settings: { repeatStrategy: cronerRepeatStrategy } },
      worker: {
        concurrency: concurrency.weekly ?? 4,
        lockDuration: 60_000,
        stalledInterval: 30_000,
        maxStalledCount: 1,
      },
    },
    alerts: {
      queue: {},
      worker: { concurrency: concurrency.alerts ?? 4, lockDuration: 60_000, maxStalledCount: 1 },
    },
  });
}

/** Tests: every kind's job lock and stalled check shortened (a killed replica's job is taken over soon). */
export interface PlaneTimings {
  lockDurationMs: number;
  stalledIntervalMs: number;
}

function withTimings(
  timings: PlaneTimings | undefined,
  kinds: Record<PlaneKind, PlaneKindOptions>,
): Record<PlaneKind, PlaneKindOptions> {
  if (!timings) return kinds;
  const worker = { lockDuration: timings.lockDurationMs, stalledInterval: timings.stalledIntervalMs };
  return Object.fromEntries(
    Object.entries(kinds).map(([kind, o]) => [kind, { ...o, worker: { ...o.worker, ...worker } }]),
  ) as Record<PlaneKind, PlaneKindOptions>;
}

/** The job id of a tenant's job (BullMQ forbids `:` and purely numeric ids; tenant ids carry neither). */
export function planeJobId(kind: string, tenant: string, id: string): string {
  return `${kind}-${encodeURIComponent(tenant)}-${encodeURIComponent(id)}`;
}
