import { createHash } from 'node:crypto';
import type { Clock } from '../../common/clock.js';
import { describeError, errorCode } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { AnalyticsSource } from '../analytics-source.js';
import type { Evidence } from '../health/evidence.js';
import type { HealthApi } from '../health/ports.js';
import type { AnalyticsProjects } from '../page-views/page-views-reports.js';
import type {
  AlertPublisher,
  AlertRecord,
  AlertScheduler,
  AlertStore,
  AlertSubscription,
  PageViewsApi,
} from '../ports.js';
import type { HealthAlert } from './alert.js';
import { alarmingAt, type Candidate, findCandidates } from './candidates.js';
import { collectHistory } from './history.js';
import { readToday, type SignalReadOptions } from './read-signals.js';
import { keepsRising, MIN_HISTORY_DAYS, type Sensitivity } from './rules.js';

/** One alert per signal per channel for this long; its one follow-up within it. */
export const ALERT_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;
/** New alerts per channel per check at most: the rest (still rising) come at the next interval. */
export const MAX_NEW_ALERTS_PER_CHECK = 3;
/** How long "Mute this signal" silences one signal in one channel. */
export const MUTE_MS = 7 * 24 * 60 * 60 * 1000;

export interface HealthAlertsOptions {
  store: AlertStore;
  scheduler: AlertScheduler;
  publisher: AlertPublisher;
  source: AnalyticsSource;
  healthApiFor(projectId: string): HealthApi;
  viewsApiFor(projectId: string): PageViewsApi;
  projects: AnalyticsProjects;
  /** Keeps the Fix button's evidence (absent: the button carries the evidence itself). */
  evidence?: { save(evidence: Evidence): Promise<string> };
  encodeEvidence(evidence: Evidence): string;
  clock: Clock;
  logger: Logger;
  /** HEALTH_ALERT_INTERVAL_MS. */
  intervalMs: number;
  maxPages: number;
}

export interface CheckOutcome {
  alerts: number;
  followUps: number;
  /** Projects skipped this interval (budget, platform or store failure, or too little history). */
  skipped: number;
}

/**
 * Docs-health alerts: channels subscribe; every interval one replica reads each subscribed project's signals
 * once, compares each with its own 28-day baseline, and owes an alert (through the outbox) for a signal that
 * rose far and improbably, once per signal per channel per 7 days (an atomic claim in the store), with one
 * follow-up in the alert's thread if it keeps rising.
 */
export class HealthAlerts {
  constructor(private readonly o: HealthAlertsOptions) {}

  /** HEALTH_ALERT_INTERVAL_MS, as replies state it. */
  get intervalMs(): number {
    return this.o.intervalMs;
  }

  async subscribe(
    channelId: string,
    userId: string,
    sensitivity: Sensitivity,
  ): Promise<{ subscription: AlertSubscription; previous: AlertSubscription | undefined }> {
    const previous = await this.o.store.subscription(channelId);
    const subscription = { channelId, sensitivity, createdBy: userId, createdAt: this.o.clock.now() };
    await this.o.store.subscribe(subscription);
    // After the write, so a concurrent last `alerts off` that disarms re-reads and sees this subscription.
    await this.o.scheduler.arm();
    return { subscription, previous };
  }

  async unsubscribe(channelId: string): Promise<boolean> {
    const removed = await this.o.store.unsubscribe(channelId);
    if (removed) await this.disarmIfIdle();
    return removed;
  }

  status(channelId: string): Promise<AlertSubscription | undefined> {
    return this.o.store.subscription(channelId);
  }

  /**
   * "Mute this signal for 7 days" on an alert: that signal (its `shortHash`, as the alert's menu carries it)
   * neither alerts nor follows up in this channel for 7 days; every other signal still does.
   */
  muteSignal(channelId: string, signalHash: string): Promise<void> {
    return this.o.store.mute(channelId, signalHash, MUTE_MS);
  }

  /** The channels a person subscribed (App Home). */
  async subscribedBy(userId: string): Promise<AlertSubscription[]> {
    return (await this.o.store.subscriptions()).filter((s) => s.createdBy === userId);
  }

  /** Takes checks; the recurring check exists only while some channel is subscribed. */
  async start(): Promise<void> {
    await this.o.scheduler.start(async (tickMs) => {
      await this.check(tickMs);
    });
    if ((await this.o.store.subscriptions()).length > 0) await this.o.scheduler.arm();
  }

  stop(): Promise<void> {
    return this.o.scheduler.stop();
  }

  /** One interval's check: once per interval whichever replica (or retry) runs it. */
  async check(tickMs: number): Promise<CheckOutcome> {
    const outcome: CheckOutcome = { alerts: 0, followUps: 0, skipped: 0 };
    const subscriptions = await this.o.store.subscriptions();
    if (subscriptions.length === 0) {
      await this.disarmIfIdle();
      return outcome;
    }
    const slot = Math.floor(tickMs / this.o.intervalMs);
    if (!(await this.o.store.claim(`tick:${slot}`, this.o.intervalMs))) return outcome;
    const byProject = new Map<string, AlertSubscription[]>();
    for (const s of subscriptions) {
      const projectId = this.o.projects.projectFor(s.channelId);
      byProject.set(projectId, [...(byProject.get(projectId) ?? []), s]);
    }
    for (const [projectId, subs] of byProject) {
      try {
        const done = await this.checkProject(projectId, subs, tickMs);
        if (!done) outcome.skipped += 1;
        else {
          outcome.alerts += done.alerts;
          outcome.followUps += done.followUps;
        }
      } catch (error) {
        outcome.skipped += 1;
        this.o.logger.warn(
          { projectId, code: errorCode(error), error: describeError(error) },
          'docs-health alert check skipped for this interval',
        );
      }
    }
    this.o.logger.info(
      { tick: new Date(tickMs).toISOString(), channels: subscriptions.length, ...outcome },
      'docs-health alert check done',
    );
    return outcome;
  }

  /**
   * Removes the recurring check when no channel is subscribed, then reads again: a subscription written
   * meanwhile (whose own `arm` may have run before our disarm) re-arms it, so a concurrent `on` is not lost.
   */
  private async disarmIfIdle(): Promise<void> {
    if ((await this.o.store.subscriptions()).length > 0) return;
    await this.o.scheduler.disarm();
    if ((await this.o.store.subscriptions()).length > 0) await this.o.scheduler.arm();
  }

  private async checkProject(
    projectId: string,
    subs: AlertSubscription[],
    tickMs: number,
  ): Promise<{ alerts: number; followUps: number } | undefined> {
    const read: SignalReadOptions = {
      source: this.o.source,
      health: this.o.healthApiFor(projectId),
      views: this.o.viewsApiFor(projectId),
      projectId,
      maxPages: this.o.maxPages,
      now: () => this.o.clock.now(),
    };
    const days = await collectHistory(read, this.o.store, tickMs, this.o.logger);
    if (days.length < MIN_HISTORY_DAYS) {
      this.o.logger.info({ projectId, days: days.length }, 'docs-health alerts: still collecting a baseline');
      return undefined;
    }
    const today = await readToday(read, tickMs);
    const candidates = findCandidates(days, today.signals, today.evidenceFor);
    const counts = { alerts: 0, followUps: 0 };
    for (const sub of subs) {
      let fresh = 0;
      for (const candidate of alarmingAt(candidates, sub.sensitivity)) {
        const project = this.o.projects.isMulti ? projectId : undefined;
        // One channel's failure (its store write, its outbox record) leaves the others' alerts alone; the
        // signal is judged again next interval.
        const done = await this.alertOrFollowUp(
          sub,
          candidate,
          today.signals.day,
          tickMs,
          project,
          fresh,
        ).catch((error: unknown) => {
          this.o.logger.warn(
            { channelId: sub.channelId, code: errorCode(error), error: describeError(error) },
            'docs-health alert not owed this interval',
          );
          return 'none' as const;
        });
        if (done === 'alerted') {
          counts.alerts += 1;
          fresh += 1;
        }
        if (done === 'followed_up') counts.followUps += 1;
      }
    }
    return counts;
  }

  private async alertOrFollowUp(
    sub: AlertSubscription,
    c: Candidate,
    day: string,
    tickMs: number,
    project: string | undefined,
    freshSoFar: number,
  ): Promise<'alerted' | 'followed_up' | 'none'> {
    const { store, publisher } = this.o;
    const alertOf = (record: AlertRecord): HealthAlert => ({
      channelId: sub.channelId,
      kind: c.kind,
      key: c.key,
      signalId: c.signalId,
      comparison: c.comparison,
      sensitivity: sub.sensitivity,
      day,
      trend: c.trend,
      evidence: c.evidence,
      evidenceRef: record.evidenceRef,
      ...(project ? { project } : {}),
    });
    if (await store.isMuted(sub.channelId, shortHash(c.signalId))) return 'none';
    let record = await store.alert(sub.channelId, c.signalId);
    if (!record) {
      if (freshSoFar >= MAX_NEW_ALERTS_PER_CHECK) return 'none';
      const fresh: AlertRecord = {
        signalId: c.signalId,
        deliveryKey: `health-alert:${sub.channelId}:${shortHash(c.signalId)}:${tickMs}`,
        count: c.comparison.today,
        alertedAt: tickMs,
        evidenceRef: await this.evidenceRef(c.evidence),
      };
      if (await store.claimAlert(sub.channelId, fresh, ALERT_WINDOW_MS)) {
        await publisher.postAlert(alertOf(fresh), fresh.deliveryKey);
        this.o.logger.info(
          { channelId: sub.channelId, kind: c.kind, today: c.comparison.today, key: fresh.deliveryKey },
          'docs-health alert owed',
        );
        return 'alerted';
      }
      record = await store.alert(sub.channelId, c.signalId);
      if (!record) return 'none';
    }
    // Owed again under its key: a no-op once recorded; it recovers an alert whose replica stopped right
    // after the claim.
    await publisher.postAlert(alertOf(record), record.deliveryKey);
    if (!keepsRising(c.comparison, record.count, sub.sensitivity)) return 'none';
    const threadTs = await publisher.postedTs(record.deliveryKey);
    if (!threadTs) return 'none';
    const left = record.alertedAt + ALERT_WINDOW_MS - this.o.clock.now();
    if (left <= 0 || !(await store.claim(`follow-up:${sub.channelId}:${shortHash(c.signalId)}`, left)))
      return 'none';
    await publisher.postFollowUp(alertOf(record), record.count, threadTs, `${record.deliveryKey}:follow-up`);
    return 'followed_up';
  }

  private async evidenceRef(evidence: Evidence): Promise<string> {
    if (!this.o.evidence) return this.o.encodeEvidence(evidence);
    try {
      return await this.o.evidence.save(evidence);
    } catch {
      return this.o.encodeEvidence(evidence);
    }
  }
}

/** A signal's id in keys and metadata: reader text never goes into a Slack key or a Redis key name. */
export function shortHash(signalId: string): string {
  return createHash('sha256').update(signalId).digest('base64url').slice(0, 16);
}
