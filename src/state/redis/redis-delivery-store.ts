import { LazyMap } from '../../common/lazy-collections.js';
import type { Logger } from '../../common/logger.js';
import {
  type Acquired,
  type AcquireRefusal,
  DEFAULT_KEEP_MS,
  DELIVERY_PRIORITIES,
  type Delivery,
  type NewDelivery,
  type Settlement,
} from '../../delivery/domain.js';
import type { DeliveryStore } from '../../delivery/ports.js';
import type { RedisClient } from './redis-client.js';
import { ACQUIRE, DUE, RECORD, RENEW, SETTLE } from './redis-delivery-scripts.js';
import type { DueMarker } from './redis-due-index.js';
import { EpochWatch } from './redis-epoch-watch.js';

/** Leased records whose content this replica keeps to record them again after a loss (bounded). */
const MAX_LEASED_COPIES = 1_000;

/**
 * The outbox in Redis, shared by every replica and kept across restarts (scripts: redis-delivery-scripts).
 * Redis losing data is told by its epoch (see the scripts): this replica remembers the one it saw, and a
 * delivery it was attempting when the data went is recorded again (looked up before it is posted).
 */
export class RedisDeliveryStore implements DeliveryStore {
  private readonly epoch: EpochWatch;
  /** What each lease this replica holds delivers, by key: recorded again if Redis lost it meanwhile. */
  private readonly leased = new LazyMap<string, NewDelivery>();

  constructor(
    private readonly client: RedisClient,
    /** Key prefix ending in `:` (the bot's namespace). */
    private readonly prefix: string,
    logger?: Logger,
    /**
     * OAuth mode: the replica-wide due index, marked (in the same pipeline, before the write) with the
     * earliest time each write makes the record due, so a reconciler finds the tenant without a timer per
     * tenant. A lease's end is marked too: its holder may die holding it.
     */
    private readonly dueIndex?: DueMarker,
  ) {
    this.epoch = new EpochWatch(logger);
  }

  async record(
    input: NewDelivery,
    _now: number,
    owner?: { holder: string; graceMs: number },
  ): Promise<Delivery> {
    const [, reply] = await Promise.all([
      this.mark(0),
      this.run(RECORD, input.key, [
        String(Math.max(1, Math.round(input.keepMs ?? DEFAULT_KEEP_MS))),
        JSON.stringify(input.target),
        JSON.stringify(input.payload ?? null),
        input.priority,
        input.seq === undefined ? '' : String(input.seq),
        owner?.holder ?? '',
        String(Math.max(0, Math.round(owner?.graceMs ?? 0))),
        String(Math.max(0, Math.round(input.delayMs ?? 0))),
      ]),
    ]);
    return parse(input.key, reply as string[]);
  }

  async get(key: string): Promise<Delivery | undefined> {
    const fields = await this.client.hGetAll(this.hashKey(key));
    if (!fields || Object.keys(fields).length === 0) return undefined;
    return fromFields(key, fields as Record<string, string>);
  }

  async acquire(key: string, holder: string, leaseMs: number, _now: number): Promise<Acquired> {
    const [, answer] = await Promise.all([this.mark(leaseMs), this.run(ACQUIRE, key, [holder, ms(leaseMs)])]);
    const reply = answer as string[];
    if (reply[0] !== 'ok') return { ok: false, why: reply[0] as AcquireRefusal };
    const delivery = parse(key, reply.slice(1));
    this.keepCopy(delivery);
    return { ok: true, delivery };
  }

  async renew(key: string, holder: string, token: number, leaseMs: number, _now: number) {
    const [, answer] = await Promise.all([
      this.mark(leaseMs),
      this.run(RENEW, key, [holder, String(token), ms(leaseMs)]),
    ]);
    const reply = answer as string[];
    if (reply[0] === 'missing') await this.recordAgain(key);
    if (reply.length <= 1) {
      this.leased.delete(key);
      return undefined;
    }
    return parse(key, reply);
  }

  async settle(key: string, holder: string, token: number, s: Settlement, now: number): Promise<boolean> {
    const args: string[] = [holder, String(token), s.kind];
    // Delays are relative on the caller's clock, absolute on Redis's: replicas' clock skew does not matter.
    if (s.kind === 'posted')
      args.push(
        s.ts ?? '',
        String(s.revision),
        flag(s.uncertain),
        ms(s.recheck.afterMs),
        ms(s.recheck.forMs),
      );
    else if (s.kind === 'abandoned') args.push(s.reason);
    else if (s.kind === 'checked') args.push(ms(s.afterMs));
    else if (s.kind === 'retry') {
      args.push(ms(s.notBefore - now), flag(s.uncertain));
      // Always two more: the epoch goes last, so the script cannot tell a missing recheck by its absence.
      if (s.recheck) args.push(ms(s.recheck.afterMs), ms(s.recheck.forMs));
      else args.push('', '');
    } else args.push(ms(s.afterMs), flag(s.uncertain));
    const [, reply] = await Promise.all([this.mark(dueAfterSettle(s, now)), this.run(SETTLE, key, args)]);
    // Gone while leased: Redis lost it. Not yet delivered, it is owed again (and looked up first).
    if (reply === -1 && (s.kind === 'retry' || s.kind === 'released')) await this.recordAgain(key);
    this.leased.delete(key);
    return reply === 1;
  }

  async due(_now: number, limit: number): Promise<string[]> {
    const reply = (await this.client.eval(DUE, {
      // Declared, most urgent first, then the epoch (issue 34: a script names every key it can name; the
      // delivery hashes it finds in the due sets share their slot through the namespace's hash tag).
      keys: [...this.dueKeys(), this.epochKey()],
      arguments: [this.prefix, String(limit), this.epoch.known],
    })) as string[];
    this.epoch.saw(reply[0] ?? '');
    return reply.slice(1);
  }

  /** The earliest due time left in this outbox (the due index's next mark for its tenant), if any. */
  async nextDueAt(): Promise<number | undefined> {
    const firsts = await Promise.all(this.dueKeys().map((due) => this.client.zRangeWithScores(due, 0, 0)));
    const scores = firsts.flatMap((first) => first.map((entry) => entry.score));
    return scores.length === 0 ? undefined : Math.min(...scores);
  }

  /** Marks the due index `inMs` from now (nothing without an index, or when nothing will be due). */
  private async mark(inMs: number | undefined): Promise<void> {
    if (this.dueIndex && inMs !== undefined) await this.dueIndex.mark(Date.now() + inMs);
  }

  private run(script: string, key: string, args: string[]) {
    return this.client.eval(script, {
      keys: [this.hashKey(key), ...this.dueKeys(), this.epochKey()],
      // The epoch this replica knows goes last: a script that finds another one knows Redis lost data.
      // ARGV[2] (the prefix) is no longer read, its keys being declared; it keeps the arguments' places.
      arguments: [key, this.prefix, ...args, this.epoch.known],
    });
  }

  /** The due sets in the order the scripts read them (reply, final, intermediate: most urgent first). */
  private dueKeys(): string[] {
    return DELIVERY_PRIORITIES.map((p) => `${this.prefix}deliveries:due:${p}`);
  }

  private epochKey(): string {
    return `${this.prefix}deliveries:epoch`;
  }

  private keepCopy(d: Delivery): void {
    if (d.state === 'posted') return;
    this.leased.delete(d.key);
    this.leased.set(d.key, {
      key: d.key,
      target: d.target,
      payload: d.payload,
      priority: d.priority,
      ...(d.seq === undefined ? {} : { seq: d.seq }),
      ...(d.keepMs === undefined ? {} : { keepMs: d.keepMs }),
    });
    if (this.leased.size > MAX_LEASED_COPIES) this.leased.delete(this.leased.keys().next().value!);
  }

  private async recordAgain(key: string): Promise<void> {
    const copy = this.leased.get(key);
    this.leased.delete(key);
    if (!copy) return;
    await this.record(copy, Date.now());
    this.epoch.recordedAgain(key);
  }

  private hashKey(key: string): string {
    return `${this.prefix}delivery:${key}`;
  }
}

/** When a settled record falls due again (relative), or undefined when it never does. */
function dueAfterSettle(s: Settlement, now: number): number | undefined {
  if (s.kind === 'posted') return s.recheck.forMs > 0 ? s.recheck.afterMs : undefined;
  if (s.kind === 'abandoned') return undefined;
  if (s.kind === 'retry') return Math.min(Math.max(0, s.notBefore - now), s.recheck?.afterMs ?? Infinity);
  if (s.kind === 'checked') return s.afterMs;
  return s.afterMs; // released
}

const ms = (value: number) => String(Math.max(0, Math.round(value)));
const flag = (value: boolean) => (value ? '1' : '0');

function parse(key: string, flat: string[]): Delivery {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!;
  return fromFields(key, fields);
}

function fromFields(key: string, f: Record<string, string>): Delivery {
  const num = (name: string) => (f[name] === undefined ? undefined : Number(f[name]));
  const priority = DELIVERY_PRIORITIES.includes(f.priority as never)
    ? (f.priority as Delivery['priority'])
    : 'intermediate';
  return {
    key,
    target: JSON.parse(f.target ?? 'null'),
    payload: JSON.parse(f.payload ?? 'null'),
    priority,
    state: (f.state ?? 'pending') as Delivery['state'],
    notBefore: num('notBefore') ?? 0,
    attempts: num('attempts') ?? 0,
    revision: num('revision') ?? 0,
    createdAt: num('createdAt') ?? 0,
    ...(f.seq === undefined ? {} : { seq: Number(f.seq) }),
    ...(f.keepMs === undefined ? {} : { keepMs: Number(f.keepMs) }),
    ...(f.holder === undefined ? {} : { holder: f.holder }),
    ...(f.leaseUntil === undefined ? {} : { leaseUntil: Number(f.leaseUntil) }),
    ...(f.uncertainSince === undefined ? {} : { uncertainSince: Number(f.uncertainSince) }),
    ...(f.postedTs === undefined ? {} : { postedTs: f.postedTs }),
    ...(f.reason === undefined ? {} : { reason: f.reason }),
    ...(f.owner === undefined ? {} : { owner: f.owner }),
    ...(f.graceUntil === undefined ? {} : { graceUntil: Number(f.graceUntil) }),
    ...(f.sweepUntil === undefined ? {} : { sweepUntil: Number(f.sweepUntil) }),
    ...(f.reopen === undefined ? {} : { reopen: true }),
  };
}
