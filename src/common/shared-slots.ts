import type { HistoryAnswers } from './history-answers.js';

/**
 * Call slots shared by every replica (Redis mode): the same pace as an in-process pacer (a burst, then one
 * start per interval), counted once for all processes, so N replicas together stay inside Slack's tiers
 * instead of each using all of them. A failure of the shared store rejects; callers fall back to their own
 * in-process pacing, so a store outage never holds Slack calls back.
 */
export interface SharedSlots {
  /** What history reads found, shared by the same replicas (a distributed app reads history once a minute). */
  readonly historyAnswers?: HistoryAnswers;
  /**
   * Reserves the next slot of `key`; resolves how long to wait (ms) before starting. With `maxWaitMs`, a
   * slot further away than that is not reserved: resolves -1 (nothing taken).
   */
  reserve(key: string, intervalMs: number, burst: number, maxWaitMs?: number): Promise<number>;
  /** Slack answered 429: no slot of `key` starts within `retryAfterMs`. */
  holdOff(key: string, intervalMs: number, burst: number, retryAfterMs: number): Promise<void>;
}
