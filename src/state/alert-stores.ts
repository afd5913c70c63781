import { createHash } from 'node:crypto';
import type { DaySignals } from '../insights/alerts/signals.js';
import type { AlertRecord, AlertStore, AlertSubscription } from '../insights/ports.js';
import { guardState } from './keyv-job-store.js';
import type { RedisClient } from './redis/redis-client.js';

/** A signal id (reader text) as part of a key name: a fixed-length hash. */
const keyOf = (signalId: string) => createHash('sha256').update(signalId).digest('base64url').slice(0, 22);

const SWEEP_FLOOR = 500;

const bySubscription = (a: AlertSubscription, b: AlertSubscription) =>
  a.channelId < b.channelId ? -1 : a.channelId > b.channelId ? 1 : 0;

/** Alert state of this process only (lost on restart); one JS thread makes set-if-absent atomic. */
export class MemoryAlertStore implements AlertStore {
  private readonly subs = new Map<string, AlertSubscription>();
  private readonly values = new Map<string, { value: unknown; until: number }>();
  /** Entries after the last sweep: the next sweep comes when there are twice as many. */
  private sweptAt = SWEEP_FLOOR;

  constructor(private readonly now: () => number = Date.now) {}

  async subscriptions(): Promise<AlertSubscription[]> {
    return [...this.subs.values()].sort(bySubscription);
  }
  async subscription(channelId: string): Promise<AlertSubscription | undefined> {
    return this.subs.get(channelId);
  }
  async subscribe(subscription: AlertSubscription): Promise<void> {
    this.subs.set(subscription.channelId, { ...subscription });
  }
  async unsubscribe(channelId: string): Promise<boolean> {
    return this.subs.delete(channelId);
  }
  async day(projectId: string, day: string): Promise<DaySignals | undefined> {
    return this.read(`day:${projectId}:${day}`) as DaySignals | undefined;
  }
  async putDay(projectId: string, signals: DaySignals, ttlMs: number): Promise<void> {
    this.write(`day:${projectId}:${signals.day}`, signals, ttlMs);
  }
  async claimAlert(channelId: string, record: AlertRecord, ttlMs: number): Promise<boolean> {
    return this.setIfAbsent(`alert:${channelId}:${keyOf(record.signalId)}`, { ...record }, ttlMs);
  }
  async alert(channelId: string, signalId: string): Promise<AlertRecord | undefined> {
    return this.read(`alert:${channelId}:${keyOf(signalId)}`) as AlertRecord | undefined;
  }
  async claim(key: string, ttlMs: number): Promise<boolean> {
    return this.setIfAbsent(`claim:${key}`, 1, ttlMs);
  }
  async mute(channelId: string, signalHash: string, ttlMs: number): Promise<void> {
    this.write(`mute:${channelId}:${signalHash}`, 1, ttlMs);
  }
  async isMuted(channelId: string, signalHash: string): Promise<boolean> {
    return this.read(`mute:${channelId}:${signalHash}`) !== undefined;
  }

  private read(key: string): unknown {
    const entry = this.values.get(key);
    if (!entry) return undefined;
    if (entry.until > this.now()) return entry.value;
    this.values.delete(key);
    return undefined;
  }

  private setIfAbsent(key: string, value: unknown, ttlMs: number): boolean {
    if (this.read(key) !== undefined) return false;
    this.write(key, value, ttlMs);
    return true;
  }

  /** Writes, and now and then drops what expired: interval claims are never read again. */
  private write(key: string, value: unknown, ttlMs: number): void {
    const now = this.now();
    this.values.set(key, { value, until: now + ttlMs });
    if (this.values.size <= this.sweptAt * 2) return;
    for (const [k, entry] of this.values) if (entry.until <= now) this.values.delete(k);
    this.sweptAt = Math.max(SWEEP_FLOOR, this.values.size);
  }
}

/**
 * Alert state in Redis, shared by replicas and kept across restarts: subscriptions in the hash
 * `<ns>:alert-subs`, stored days `<ns>:alert-day:<project>:<day>`, alert records `<ns>:alert:<channel>:<hash>`
 * written with `SET NX PX` (the claim and the record in one atomic command), claims `<ns>:alert-claim:<key>`,
 * mutes `<ns>:alert-mute:<channel>:<signal hash>` (a plain `SET PX`: muting twice only extends it).
 * Redis errors become `state_unavailable`.
 */
export class RedisAlertStore implements AlertStore {
  constructor(
    private readonly client: RedisClient,
    private readonly prefix: string,
  ) {}

  subscriptions(): Promise<AlertSubscription[]> {
    return guardState(async () => {
      const all = await this.client.hGetAll(this.subsKey);
      return Object.values(all)
        .map((json) => parse<AlertSubscription>(json))
        .filter((s): s is AlertSubscription => s !== undefined)
        .sort(bySubscription);
    });
  }
  subscription(channelId: string): Promise<AlertSubscription | undefined> {
    return guardState(async () => parse<AlertSubscription>(await this.client.hGet(this.subsKey, channelId)));
  }
  subscribe(subscription: AlertSubscription): Promise<void> {
    return guardState(async () => {
      await this.client.hSet(this.subsKey, subscription.channelId, JSON.stringify(subscription));
    });
  }
  unsubscribe(channelId: string): Promise<boolean> {
    return guardState(async () => (await this.client.hDel(this.subsKey, channelId)) > 0);
  }
  day(projectId: string, day: string): Promise<DaySignals | undefined> {
    return guardState(async () =>
      parse<DaySignals>(await this.client.get(`${this.prefix}alert-day:${projectId}:${day}`)),
    );
  }
  putDay(projectId: string, signals: DaySignals, ttlMs: number): Promise<void> {
    return guardState(async () => {
      await this.client.set(`${this.prefix}alert-day:${projectId}:${signals.day}`, JSON.stringify(signals), {
        expiration: { type: 'PX', value: Math.max(1, Math.ceil(ttlMs)) },
      });
    });
  }
  claimAlert(channelId: string, record: AlertRecord, ttlMs: number): Promise<boolean> {
    return guardState(async () => {
      const reply = await this.client.set(this.alertKey(channelId, record.signalId), JSON.stringify(record), {
        condition: 'NX',
        expiration: { type: 'PX', value: Math.max(1, Math.ceil(ttlMs)) },
      });
      return reply === 'OK';
    });
  }
  alert(channelId: string, signalId: string): Promise<AlertRecord | undefined> {
    return guardState(async () =>
      parse<AlertRecord>(await this.client.get(this.alertKey(channelId, signalId))),
    );
  }
  claim(key: string, ttlMs: number): Promise<boolean> {
    return guardState(async () => {
      const reply = await this.client.set(`${this.prefix}alert-claim:${key}`, '1', {
        condition: 'NX',
        expiration: { type: 'PX', value: Math.max(1, Math.ceil(ttlMs)) },
      });
      return reply === 'OK';
    });
  }
  mute(channelId: string, signalHash: string, ttlMs: number): Promise<void> {
    return guardState(async () => {
      await this.client.set(this.muteKey(channelId, signalHash), '1', {
        expiration: { type: 'PX', value: Math.max(1, Math.ceil(ttlMs)) },
      });
    });
  }
  isMuted(channelId: string, signalHash: string): Promise<boolean> {
    return guardState(async () => (await this.client.get(this.muteKey(channelId, signalHash))) !== null);
  }

  private muteKey(channelId: string, signalHash: string): string {
    return `${this.prefix}alert-mute:${channelId}:${signalHash}`;
  }
  private get subsKey(): string {
    return `${this.prefix}alert-subs`;
  }
  private alertKey(channelId: string, signalId: string): string {
    return `${this.prefix}alert:${channelId}:${keyOf(signalId)}`;
  }
}

function parse<T>(json: string | null | undefined): T | undefined {
  if (json === null || json === undefined) return undefined;
  try {
    return JSON.parse(json) as T;
  } catch {
    return undefined;
  }
}
