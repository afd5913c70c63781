import type { Acquired, Delivery, DeliveryPriority, NewDelivery, Settlement } from './domain.js';

/**
 * The outbox, shared by every replica (Redis) or kept by this process (memory). Every transition is atomic
 * on the store: two replicas can never both hold a live lease on one delivery.
 */
export interface DeliveryStore {
  /**
   * Records a delivery unless its key exists. A replaceable one (`seq`) with a newer seq replaces the
   * payload (and priority), bumps the revision and is pending again if it was posted. `owner` alone may
   * attempt a new (or re-opened) record for `graceMs`; other replicas' reconcilers wait. Resolves the record.
   */
  record(delivery: NewDelivery, now: number, owner?: { holder: string; graceMs: number }): Promise<Delivery>;
  get(key: string): Promise<Delivery | undefined>;
  /**
   * Takes the lease when pending and due (and past its grace, unless `holder` owns it), in flight with an
   * expired lease (then marked uncertain: its holder may have been cut off mid-call), or posted with a
   * sweep due. The leased record's `attempts` is the lease's fencing token.
   */
  acquire(key: string, holder: string, leaseMs: number, now: number): Promise<Acquired>;
  /**
   * Extends the lease right before a call, only for its holder and token; resolves the current record (the
   * latest payload), or undefined when the lease was lost (then the call must not be made).
   */
  renew(
    key: string,
    holder: string,
    token: number,
    leaseMs: number,
    now: number,
  ): Promise<Delivery | undefined>;
  /**
   * Ends an attempt, only for the lease's holder and token (true), and clears the lease. A stale one is
   * refused (false); if it says a write may have landed, an update re-opens and a post re-arms its sweep.
   */
  settle(key: string, holder: string, token: number, settlement: Settlement, now: number): Promise<boolean>;
  /** Keys due by `now` (pending and due, or leases expired), most urgent priority first. */
  due(now: number, limit: number): Promise<string[]>;
}

/** A refusal or an unknown outcome from Slack, as the sender classifies it. */
export type AttemptFailure =
  /** Slack refused for good (channel gone, message deleted, bot removed): retrying cannot help. */
  | { kind: 'permanent'; code: string }
  /** Nothing was done (429, a full queue, shutting down): retry after `retryAfterMs` or a backoff. */
  | { kind: 'not_sent'; code: string; retryAfterMs?: number }
  /**
   * Timeout, reset or 5xx: it may have landed. Look it up before posting again; `inFlight` (no answer at
   * all) waits for Slack to finish storing it first.
   */
  | { kind: 'unknown'; code: string; inFlight?: boolean };

export class DeliveryAttemptError extends Error {
  readonly code: string;
  constructor(readonly failure: AttemptFailure) {
    super(`delivery attempt failed: ${failure.code}`);
    this.code = failure.code;
  }
}

/** Slack's side: one attempt at a time, no retries of its own (the outbox decides). */
export interface DeliverySender {
  /**
   * Makes one attempt in the target's pacing slot. `lease` is called inside the slot, right before each
   * call: it renews the lease and resolves the record to send (the latest payload), or undefined to skip.
   * Resolves the posted message's ts (posts), or undefined. Throws `DeliveryAttemptError`.
   */
  send(
    key: string,
    priority: DeliveryPriority,
    target: Delivery['target'],
    lease: () => Promise<Delivery | undefined>,
  ): Promise<{ sent: false } | { sent: true; delivery: Delivery; ts: string | undefined }>;
  /** Finds a post an earlier attempt may have landed (by its key in message metadata); its ts or undefined. */
  lookup(delivery: Delivery): Promise<string | undefined>;
  /** One pass of a posted record's sweep: deletes every copy but `keepTs`; resolves how many it deleted. */
  removeDuplicates(delivery: Delivery, keepTs: string): Promise<number>;
}

/** Counts outcomes (src/metrics). Optional. */
export interface DeliveryMetrics {
  delivery(outcome: 'posted' | 'found' | 'retry' | 'abandoned', priority: DeliveryPriority): void;
}

/** What callers owe through (implemented by `Deliveries`). */
export interface Outbox {
  /** Records a delivery (once per key) and attempts it in the background; resolves once recorded. */
  owe(delivery: NewDelivery): Promise<void>;
  /**
   * Records a delivery and makes its first attempt before resolving (answers to a person, in the order
   * asked); a failed attempt stays owed and is retried like any other. With `waitMs`, a first attempt that
   * did not settle it is waited on (retries included) that long at most.
   */
  deliver(delivery: NewDelivery, options?: { waitMs?: number }): Promise<AttemptResult>;
  /** Whether a delivery under `key` is recorded (in any state): what is owed once need not be owed again. */
  recorded(key: string): Promise<boolean>;
}

/** How one attempt ended, for callers that wait on it (a person waiting for an answer). */
export type AttemptResult =
  | { status: 'posted'; ts: string | undefined }
  | { status: 'abandoned'; reason: string }
  /** Not delivered yet: retried by this or another replica's reconciler. */
  | { status: 'pending' };
