import type { Clock } from '../../common/clock.js';
import type { OAuthConfig } from '../../common/config-oauth.js';
import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import { BotTokenRefresher, refusedForGood } from '../../slack/oauth/token-refresh.js';
import type { TenantDirectory } from '../../tenants/ports.js';
import type { TenantKey } from '../../tenants/tenant.js';

/** A rotating token is refreshed when it has less than this left (Slack's live for 12 h). */
export const REFRESH_BEFORE_MS = 2 * 60 * 60 * 1000;
/** How often each replica looks for tokens to refresh and data to purge. */
export const UPKEEP_INTERVAL_MS = 60_000;

export interface TenantUpkeepDeps {
  oauth: OAuthConfig;
  directory: TenantDirectory;
  /** The installed tenants served here (their tokens are the ones to keep fresh). */
  tenants(): TenantKey[];
  /** Deletes every record of a tenant's key space (Redis); nothing to do in memory (the runtime is gone). */
  purge(tenant: TenantKey): Promise<number>;
  /** A refresh Slack refused for good (revoked): the tenant is uninstalled. */
  uninstall(tenant: TenantKey, reason: string): Promise<void>;
  /** The directory changed here (a refreshed token): apply it now rather than at the next sync. */
  changed(): void;
  slackApiUrl: string | undefined;
  timeoutMs: number;
  clock: Clock;
  logger: Logger;
}

/**
 * Work no request triggers: expiring tokens refreshed before they expire, by one replica at a time (a lease
 * per tenant), and uninstalled tenants' data purged once its time has come (a lease per purge).
 */
export class TenantUpkeep {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
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
    // Once now: purges that fell due while no replica ran, tokens that expire soon.
    this.runOnce().catch(() => undefined);
    this.timer = setInterval(() => {
      this.runOnce().catch(() => undefined);
    }, intervalMs);
    this.timer.unref();
  }

  runOnce(): Promise<void> {
    this.running ??= (async () => {
      try {
        for (const tenant of this.deps.tenants()) await this.refreshIfDue(tenant);
        await this.purgeDue();
      } catch (error) {
        this.log.warn({ error: describeError(error) }, 'tenant upkeep failed; retrying next minute');
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  private async refreshIfDue(tenant: TenantKey): Promise<void> {
    const { directory, clock } = this.deps;
    const due = (expiresAt: number | undefined) =>
      expiresAt !== undefined && expiresAt - clock.now() < REFRESH_BEFORE_MS;
    const before = await directory.installation(tenant);
    if (!before?.refreshToken || !due(before.expiresAt)) return;
    if (!(await directory.lease(`refresh:${tenant}`, 60_000))) return;
    // Decide on what the store holds now: another replica may have refreshed it a moment ago. The save is
    // conditional on this stamp, so a refresh racing an uninstall or a re-install never writes over it.
    const stamp = (await directory.stamps()).get(tenant);
    const installation = await directory.installation(tenant);
    if (stamp === undefined) return;
    if (!installation?.refreshToken || !due(installation.expiresAt)) return;
    try {
      const answer = await this.refresher.refresh(installation.refreshToken);
      const saved = await directory.saveInstallation(
        {
          ...installation,
          botToken: answer.botToken,
          refreshToken: answer.refreshToken ?? installation.refreshToken,
          expiresAt: answer.expiresIn ? clock.now() + answer.expiresIn * 1000 : undefined,
        },
        stamp,
      );
      if (!saved) {
        this.log.info(
          { tenant },
          'the tenant changed while its token was refreshed; trying again next minute',
        );
        return;
      }
      this.log.info({ tenant }, 'refreshed the tenant’s rotating bot token');
      this.deps.changed();
    } catch (error) {
      const code = refusedForGood(error);
      if (code) {
        await this.deps.uninstall(tenant, `Slack refused to refresh its token (${code})`);
        return;
      }
      this.log.warn(
        { tenant, error: describeError(error) },
        'could not refresh the tenant’s token; retrying',
      );
    }
  }

  private async purgeDue(): Promise<void> {
    const { directory, clock } = this.deps;
    const installed = await directory.stamps();
    for (const tenant of await directory.duePurges(clock.now())) {
      if (installed.has(tenant)) {
        // Installed again before its purge: its data is its own again.
        await directory.purged(tenant);
        continue;
      }
      if (!(await directory.lease(`purge:${tenant}`, 10 * 60_000))) continue;
      // Looked at again right before deleting: a re-install a moment ago keeps its data.
      if ((await directory.stamps()).has(tenant)) {
        await directory.purged(tenant);
        continue;
      }
      const deleted = await this.deps.purge(tenant);
      await directory.purged(tenant);
      this.log.info({ tenant, deleted }, 'purged an uninstalled tenant’s data');
    }
  }

  stop(): Promise<void> | undefined {
    clearInterval(this.timer);
    return this.running;
  }
}
