import type { Clock } from '../../common/clock.js';
import type { OAuthConfig } from '../../common/config-oauth.js';
import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import { BotTokenRefresher, refreshRefused } from '../../slack/oauth/token-refresh.js';
import type { TenantDirectory } from '../../tenants/ports.js';
import type { TenantKey, TenantTokens } from '../../tenants/tenant.js';
import { afterCheck } from './token-refusals.js';

/** A rotating token is refreshed when it has less than this left (Slack's live for 12 h). */
export const REFRESH_BEFORE_MS = 2 * 60 * 60 * 1000;
/** How often each replica looks for tokens to refresh and data to purge (sooner when a check falls due). */
export const UPKEEP_INTERVAL_MS = 60_000;

export interface TenantUpkeepDeps {
  oauth: OAuthConfig;
  directory: TenantDirectory;
  /** The installed tenants served here (looked at once at start: installs from before the refresh index). */
  tenants(): TenantKey[];
  /** Deletes every record of one generation of a tenant's key space (Redis); nothing to do in memory. */
  purge(tenant: TenantKey, generation: number): Promise<number>;
  /** Slack kept refusing a suspended tenant's token through the window: uninstalled, if still that install. */
  uninstall(tenant: TenantKey, reason: string, installId: string): Promise<void>;
  /** The directory changed here (a refreshed token, a hold): apply it now rather than at the next sync. */
  changed(): void;
  slackApiUrl: string | undefined;
  timeoutMs: number;
  clock: Clock;
  logger: Logger;
}

/**
 * Work no request triggers, by one replica at a time (a lease each): rotating tokens refreshed before they
 * expire (only the due ones are read), suspended tenants' tokens checked again, and uninstalled tenants'
 * data purged once its time has come. One timer per process, whatever the number of tenants.
 */
export class TenantUpkeep {
  private timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires: a check falling due later never puts off a sooner pass. */
  private timerAt = Number.POSITIVE_INFINITY;
  private running: Promise<void> | undefined;
  private stopped = false;
  private firstPass = true;
  private intervalMs = UPKEEP_INTERVAL_MS;
  /** Refreshed tokens Slack issued but the store did not take yet (Redis failing): saved before anything else. */
  private readonly unsaved = new Map<TenantKey, { tokens: TenantTokens; installId: string }>();
  private readonly refresher: BotTokenRefresher;
  private readonly log: Logger;

  constructor(private readonly deps: TenantUpkeepDeps) {
    this.log = deps.logger.child({ component: 'tenant-upkeep' });
    this.refresher = new BotTokenRefresher(deps.oauth, {
      slackApiUrl: deps.slackApiUrl,
      timeoutMs: deps.timeoutMs,
    });
  }

  start(intervalMs = UPKEEP_INTERVAL_MS): void {
    this.intervalMs = intervalMs;
    // Once now: purges that fell due while no replica ran, tokens that expire soon.
    this.schedule(0);
  }

  /** A tenant was suspended here: its first check may come before the next regular pass. */
  soon(atMs: number): void {
    const inMs = Math.max(0, atMs - this.deps.clock.now());
    if (this.deps.clock.now() + inMs < this.timerAt) this.schedule(inMs);
  }

  runOnce(): Promise<void> {
    this.running ??= (async () => {
      let nextCheck: number | undefined;
      try {
        await this.saveUnsaved();
        for (const tenant of await this.refreshCandidates()) await this.refreshIfDue(tenant);
        nextCheck = await this.checkSuspended();
        await this.purgeDue();
      } catch (error) {
        this.log.warn({ error: describeError(error) }, 'tenant upkeep failed; retrying next minute');
      } finally {
        this.running = undefined;
      }
      const wait = nextCheck === undefined ? this.intervalMs : nextCheck - this.deps.clock.now();
      this.schedule(Math.min(this.intervalMs, Math.max(10, wait)));
    })();
    return this.running;
  }

  private schedule(inMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timerAt = this.deps.clock.now() + inMs;
    this.timer = setTimeout(() => {
      this.timerAt = Number.POSITIVE_INFINITY;
      void this.runOnce().catch(() => undefined);
    }, inMs);
    this.timer.unref();
  }

  private async refreshCandidates(): Promise<TenantKey[]> {
    const due = await this.deps.directory.refreshesDue(this.deps.clock.now() + REFRESH_BEFORE_MS);
    if (!this.firstPass) return due;
    this.firstPass = false;
    return [...new Set([...due, ...this.deps.tenants()])];
  }

  private async refreshIfDue(tenant: TenantKey): Promise<void> {
    const { directory, clock } = this.deps;
    const due = (expiresAt: number | undefined) =>
      expiresAt !== undefined && expiresAt - clock.now() < REFRESH_BEFORE_MS;
    const before = await directory.installation(tenant);
    if (!before?.refreshToken || !due(before.expiresAt) || this.unsaved.has(tenant)) return;
    // Held past the call's own time-out and the save: two replicas never spend one refresh token.
    if (!(await directory.lease(`refresh:${tenant}`, 2 * this.deps.timeoutMs + 1_000))) return;
    // Decided on what the store holds now: another replica may have refreshed it a moment ago. The save is
    // for this install only, so a refresh racing an uninstall or a re-install never writes over it; a
    // settings save meanwhile changes nothing of it.
    const lifecycle = await directory.lifecycle(tenant);
    const installation = await directory.installation(tenant);
    if (!lifecycle || lifecycle.hold?.state === 'needs_reinstall') return;
    if (!installation?.refreshToken || !due(installation.expiresAt)) return;
    const { installId } = lifecycle;
    let tokens: TenantTokens;
    try {
      const answer = await this.refresher.refresh(installation.refreshToken);
      tokens = {
        botToken: answer.botToken,
        refreshToken: answer.refreshToken ?? installation.refreshToken,
        expiresAt: answer.expiresIn ? clock.now() + answer.expiresIn * 1000 : undefined,
      };
    } catch (error) {
      const code = refreshRefused(error);
      if (code) {
        await this.needsReinstall(tenant, installId, `Slack refused to refresh its token (${code})`);
        return;
      }
      // No answer (a time-out, the network): Slack may not have seen it, so the same refresh token is tried
      // again; if Slack did rotate it, that try is refused and the tenant needs a re-install.
      const what = 'could not refresh the tenant’s token; retrying';
      this.log.warn({ tenant, error: describeError(error) }, what);
      return;
    }
    // The old refresh token is spent from here on: these tokens are kept until the store has them.
    this.unsaved.set(tenant, { tokens, installId });
    await this.saveUnsaved();
  }

  private async saveUnsaved(): Promise<void> {
    for (const [tenant, { tokens, installId }] of this.unsaved) {
      try {
        const saved = await this.deps.directory.saveTokens(tenant, tokens, installId);
        this.unsaved.delete(tenant);
        if (!saved) {
          this.log.info(
            { tenant },
            'the tenant was uninstalled or installed again while its token was refreshed',
          );
          continue;
        }
        this.log.info({ tenant }, 'refreshed the tenant’s rotating bot token');
        this.deps.changed();
      } catch (error) {
        const what = 'could not save the tenant’s refreshed token; saving it again';
        this.log.warn({ tenant, error: describeError(error) }, what);
      }
    }
  }

  /** A token that cannot be refreshed: no calls, data kept, until someone installs the app again. */
  private async needsReinstall(tenant: TenantKey, installId: string, reason: string): Promise<void> {
    const hold = { state: 'needs_reinstall' as const, since: this.deps.clock.now(), reason };
    if (!(await this.deps.directory.hold(tenant, hold, installId))) return;
    this.log.error(
      { tenant, reason },
      `tenant ${tenant}: ${reason}; it makes no Slack calls and keeps its data until someone installs the app again (Add to Slack)`,
    );
    this.deps.changed();
  }

  /** Checks the suspended tenants whose check is due; resolves when the next one falls due. */
  private async checkSuspended(): Promise<number | undefined> {
    const { directory, clock, oauth } = this.deps;
    let next: number | undefined;
    for (const [tenant, hold] of await directory.holds()) {
      if (hold.state !== 'suspended') continue;
      if (hold.nextCheckAt > clock.now()) {
        next = Math.min(next ?? hold.nextCheckAt, hold.nextCheckAt);
        continue;
      }
      // One replica checks (for about one call's time); the next check's time is in the stored hold.
      if (!(await directory.lease(`check:${tenant}:${hold.checks}`, this.deps.timeoutMs + 1_000))) continue;
      const [lifecycle, installation] = await Promise.all([
        directory.lifecycle(tenant),
        directory.installation(tenant),
      ]);
      const current = lifecycle?.hold;
      if (!lifecycle || !installation || current?.state !== 'suspended' || current.checks !== hold.checks)
        continue;
      const accepted = await this.refresher.accepted(installation.botToken);
      const decided = afterCheck(current, accepted, clock.now(), oauth.revocationWindowMs);
      if (decided.next === 'lift') {
        if (await directory.hold(tenant, undefined, lifecycle.installId)) {
          this.log.info({ tenant }, 'Slack accepts the suspended tenant’s token again; serving it again');
          this.deps.changed();
        }
      } else if (decided.next === 'uninstall') {
        const window = Math.round(oauth.revocationWindowMs / 1000);
        const reason = `Slack kept refusing its token (${current.code}) for ${window} s`;
        await this.deps.uninstall(tenant, reason, lifecycle.installId);
      } else {
        await directory.hold(tenant, decided.hold, lifecycle.installId);
        next = Math.min(next ?? decided.hold.nextCheckAt, decided.hold.nextCheckAt);
      }
    }
    return next;
  }

  private async purgeDue(): Promise<void> {
    const { directory, clock } = this.deps;
    for (const tenant of await directory.duePurges(clock.now())) {
      if (!(await directory.lease(`purge:${tenant}`, 10 * 60_000))) continue;
      // Installed again before it began: its data is its own again. Once begun, an install writes under
      // the next generation, which this purge never reaches.
      const generation = await directory.beginPurge(tenant);
      if (generation === undefined) continue;
      const deleted = await this.deps.purge(tenant, generation);
      await directory.purged(tenant, generation);
      this.log.info({ tenant, deleted }, 'purged an uninstalled tenant’s data');
    }
  }

  stop(): Promise<void> | undefined {
    this.stopped = true;
    clearTimeout(this.timer);
    return this.running;
  }
}
