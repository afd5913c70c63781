import type { Logger } from '../common/logger.js';
import type { Delivery } from './domain.js';
import type { DeliveryMetrics, DeliverySender, DeliveryStore } from './ports.js';

export interface DeliveriesOptions {
  store: DeliveryStore;
  sender: DeliverySender;
  /** Operational time (leases, retries, give-up): the system clock, never a domain clock a test may freeze. */
  now?: () => number;
  logger: Logger;
  /** This replica in leases (default: a random id per process). */
  holder?: string;
  /**
   * How long a holder that stopped renewing keeps a delivery (renewed every third of it while an attempt
   * runs, and right before each call): at least a call's timeout plus the settle time (default 30 s).
   */
  leaseMs?: number;
  /** How long after its answer (or timeout) a call may still land (default 4 s): looked up only after it. */
  settleMs?: number;
  /** A new record is its recorder's alone this long; other replicas' reconcilers wait (default `settleMs`). */
  graceMs?: number;
  /** How long copies of an uncertain post are swept for (the look-up window; default 2 × lease + settle). */
  sweepForMs?: number;
  /** Reconciler attempts running at once in this replica (default 16): one slow channel blocks no batch. */
  concurrency?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** A delivery still failing this long after it was recorded is abandoned (default 24 h). */
  giveUpAfterMs?: number;
  metrics?: DeliveryMetrics;
  random?: () => number;
  /**
   * Slack refused a delivery for good (sending it, or showing where it may have landed): the record has
   * ended with `code`; this tells the person it was for, where that fits. Its failure is only logged.
   */
  onRefused?: (delivery: Delivery, code: string) => Promise<void>;
}

/**
 * The outbox's timings for a Slack call timeout (RELIABILITY.md, "Delivery timings"). Slack may store a call
 * whose answer was lost (timeout, reset, 5xx) for a while after that answer: the settle time, twice the
 * timeout. So an unknown outcome is looked up the settle time after its answer; a lapsed lease only once the
 * last call made under it can no longer land (its timeout plus the settle time after the renewal before it,
 * plus a margin for a slow store); a new record is its recorder's for the settle time, at most 5 s (only
 * its own first attempt needs it; a recorder that died is not waited on long).
 */
export function deliveryTimingsFor(
  callTimeoutMs: number,
): Required<Pick<DeliveriesOptions, 'leaseMs' | 'settleMs' | 'graceMs'>> {
  const settleMs = 2 * callTimeoutMs;
  return { settleMs, leaseMs: callTimeoutMs + settleMs + 5_000, graceMs: Math.min(settleMs, 5_000) };
}
