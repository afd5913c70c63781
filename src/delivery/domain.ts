/**
 * A message the bot owes someone, recorded before its first attempt (an outbox row) and done only when
 * Slack confirmed it. Keys are deterministic (`terminal:<job>:<generation>`, `card:<channel>:<ts>`…), so
 * whoever owes the same message again finds the same record: never a second copy, never a lost one.
 */

/** Who waits for it, most urgent first: replies and answers, then final card states, then the rest. */
export type DeliveryPriority = 'reply' | 'final' | 'intermediate';
export const DELIVERY_PRIORITIES: readonly DeliveryPriority[] = ['reply', 'final', 'intermediate'];

/** Where it goes and what kind of Slack call delivers it. */
export type DeliveryTarget =
  /** A new message (in a thread when `threadTs` is set); found again by its key in message metadata. */
  | {
      kind: 'post';
      channel: string;
      threadTs: string | null;
      /** The person it is for: told by direct message if Slack refuses it there for good. */
      forUser?: string;
    }
  /** A message edited in place (a job card): the latest state wins, older ones are skipped. */
  | { kind: 'update'; channel: string; ts: string }
  /** Reactions on a message: exactly `names` of `managed` end up present (idempotent). */
  | { kind: 'reactions'; channel: string; ts: string; names: string[]; managed: string[] }
  /**
   * An answer through a command's or button's response_url (valid 30 minutes, 5 uses). Ephemeral answers
   * cannot be looked up: after an unknown outcome the answer is sent again (the person may see it twice).
   */
  | { kind: 'respond'; url: string }
  /**
   * The AI container's status line under a thread (`threadTs`), or the steps of a streamed message (`ts`):
   * each is one replaceable delivery whose latest state wins; `stop` ends the stream with its last steps.
   */
  | { kind: 'assistant'; call: 'status' | 'append' | 'stop'; channel: string; ts: string }
  /**
   * Previews of links under a person's message (`chat.unfurl`), addressed by Slack's `unfurlId` + `source`
   * when the event gave them, else by the message's `channel` + `ts`. A repeat replaces the same previews,
   * so an unknown outcome is simply attempted again (nothing to look up).
   */
  | {
      kind: 'unfurl';
      channel: string;
      ts: string;
      unfurlId?: string;
      source?: 'composer' | 'conversations_history';
    }
  /**
   * A change owed to a shared message of ours at a later time (a mute's end): applied, when due, to the
   * message's latest state, whose update is then owed like any other (`shared:<channel>:<ts>`). `edit` names
   * the change (JSON); applying it again changes nothing.
   */
  | { kind: 'edit'; channel: string; ts: string; edit: unknown };

/** Pending → in flight (leased) → posted | abandoned; an expired lease is pending again. */
export type DeliveryState = 'pending' | 'in_flight' | 'posted' | 'abandoned';

/** What a caller hands in. `payload` is the rendered message (JSON), opaque to this module. */
export interface NewDelivery {
  key: string;
  target: DeliveryTarget;
  payload: unknown;
  priority: DeliveryPriority;
  /**
   * Replaceable deliveries (card states): a newer `seq` replaces the payload of a record not yet posted, or
   * re-opens a posted one; an older or equal `seq` is ignored, so a replica holding a stale copy can never
   * put an older card state back. Absent: the first record of the key stands.
   */
  seq?: number;
  /** How long the record (and so the memory of "posted") is kept (default 30 days). */
  keepMs?: number;
  /** A new record is not attempted before this long after it is recorded (on the store's clock). */
  delayMs?: number;
}

export interface Delivery extends NewDelivery {
  state: DeliveryState;
  /** The replica holding the lease while in flight. */
  holder?: string;
  leaseUntil?: number;
  /** Not attempted before (backoff after a failure). */
  notBefore: number;
  attempts: number;
  /** Set once an attempt's outcome was unknown (timeout, reset, 5xx): look it up before posting again. */
  uncertainSince?: number;
  /** The replica that recorded it: only it attempts the record before `graceUntil` (no thrash). */
  owner?: string;
  graceUntil?: number;
  /**
   * A posted record whose copies are still checked (an earlier attempt's outcome was unknown): until then
   * it stays due every `notBefore` for a sweep that deletes every copy but `postedTs`.
   */
  sweepUntil?: number;
  /** An update a stale holder may have applied after the live one: sent again once the live one ends. */
  reopen?: boolean;
  /** Bumped on every payload replacement; a post of an older revision leaves the record pending. */
  revision: number;
  postedTs?: string;
  reason?: string;
  /** When it became owed: recorded (re-opened), or the end of its `delayMs`. */
  createdAt: number;
}

export const DEFAULT_KEEP_MS = 30 * 24 * 60 * 60 * 1000;

/** Why an attempt could not take the lease. */
export type AcquireRefusal = 'missing' | 'posted' | 'abandoned' | 'held' | 'not_due';
export type Acquired = { ok: true; delivery: Delivery } | { ok: false; why: AcquireRefusal };

/**
 * How long a copy may still land after an unknown outcome (`afterMs`: Slack's settle time), and how long
 * it is checked for (`forMs`: the look-up window): a post keeps a durable sweep that long, an update is
 * sent once more after `afterMs`.
 */
export interface Recheck {
  afterMs: number;
  forMs: number;
}

/**
 * How an attempt ended, as the store records it. Every settlement carries the lease's fencing token (its
 * attempt number): the store applies it only for that holder and token, so a stale holder changes nothing
 * (a stale write that may have landed, reported or timed out, re-opens an update or a set of reactions, or
 * re-arms a post's sweep).
 */
export type Settlement =
  /** `uncertain`: an earlier attempt's outcome was unknown, so the record is re-checked (`recheck`). */
  | { kind: 'posted'; ts: string | undefined; revision: number; uncertain: boolean; recheck: Recheck }
  /** `recheck`: how a write of this attempt that may have landed is checked if its lease was lost meanwhile. */
  | { kind: 'retry'; notBefore: number; uncertain: boolean; recheck?: Recheck }
  | { kind: 'abandoned'; reason: string }
  /** Shutdown: the lease is given back, due after `afterMs` (a call cut short may still be landing). */
  | { kind: 'released'; uncertain: boolean; afterMs: number }
  /** One pass of a posted record's duplicate sweep; the next one after `afterMs`, until `sweepUntil`. */
  | { kind: 'checked'; afterMs: number };

/** Deliveries whose latest state is simply sent again when an older write may have landed after it. */
export function resentWhole(kind: DeliveryTarget['kind']): boolean {
  return kind === 'update' || kind === 'reactions';
}

/** When a record is due for its next attempt (the reconciler's index score). */
export function dueAt(
  d: Pick<Delivery, 'state' | 'notBefore' | 'leaseUntil' | 'graceUntil' | 'sweepUntil'>,
): number | undefined {
  if (d.leaseUntil !== undefined) return d.leaseUntil;
  if (d.state === 'pending') return Math.max(d.notBefore, d.graceUntil ?? 0);
  if (d.state === 'posted' && d.sweepUntil !== undefined) return d.notBefore;
  return undefined;
}
