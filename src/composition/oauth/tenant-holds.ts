import type { Clock } from '../../common/clock.js';
import type { Config } from '../../common/config.js';
import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { InboundRequest } from '../../slack/tenant-slack-app.js';
import type { DirectoryChange, QueuePlane } from '../../state/adapters.js';
import type { TenantDirectory } from '../../tenants/ports.js';
import type { TenantHold, TenantKey, TenantSource } from '../../tenants/tenant.js';
import type { TenantRuntime } from './tenant-runtime.js';
import { suspension } from './token-refusals.js';

/** What a person is told when they use the bot while its Slack access is on hold, and how it is fixed. */
export function holdNotice(hold: TenantHold): string {
  if (hold.state === 'needs_reinstall')
    return 'docs-agent lost its access to this workspace: Slack no longer lets it renew its token. Nothing is lost (your jobs, schedules and connected projects are kept). To fix it, someone who may install apps here opens the page docs-agent was installed from and clicks *Add to Slack* again; it works again at once.';
  return 'docs-agent is paused in this workspace: Slack is refusing its token, so it sends nothing for now. Nothing is lost, and it checks again on its own and carries on when Slack accepts it. If this lasts, someone who may install apps here can click *Add to Slack* again on the page docs-agent was installed from.';
}

/** Events a tenant on hold still acts on: they may uninstall it. */
const STILL_READ = new Set(['app_uninstalled', 'tokens_revoked']);

/**
 * A request to a tenant on hold: an uninstall signal goes to its runtime (it makes no call), a command is
 * answered in its acknowledgement (no Slack call needed) with what happened and how to fix it, anything
 * else is acknowledged and ignored. False: the runtime takes it.
 */
export async function answeredOnHold(
  request: InboundRequest,
  hold: TenantHold,
  homeNotice: (userId: string, notice: string) => void,
): Promise<boolean> {
  const body = request.body as {
    command?: unknown;
    event?: { type?: unknown; tab?: unknown; user?: unknown };
  };
  const event = body.event;
  if (typeof event?.type === 'string' && STILL_READ.has(event.type)) return false;
  if (typeof body.command === 'string') {
    await request.ack({ response_type: 'ephemeral', text: holdNotice(hold) });
    return true;
  }
  await request.ack();
  // Its token may still work for a while (needs re-install); a suspended one is refused, so no Home then.
  const home = event?.type === 'app_home_opened' && event.tab !== 'messages';
  if (home && hold.state === 'needs_reinstall' && typeof event.user === 'string')
    homeNotice(event.user, holdNotice(hold));
  return true;
}

/**
 * Suspends a tenant whose stored token Slack refused (once: a tenant already on hold stays as it is), shared
 * by every replica through the directory. Resolves when its first check is due (undefined: not suspended here).
 */
export async function suspendTenant(
  deps: { directory: TenantDirectory; clock: Clock; config: Config },
  log: Logger,
  tenant: TenantKey,
  code: string,
): Promise<number | undefined> {
  const { directory, clock, config } = deps;
  const lifecycle = await directory.lifecycle(tenant);
  if (!lifecycle || lifecycle.hold) return undefined;
  const windowMs = config.oauth?.revocationWindowMs ?? 0;
  const hold = suspension(clock.now(), code, windowMs);
  if (!(await directory.hold(tenant, hold, lifecycle.installId))) return undefined;
  log.warn(
    { tenant, code },
    `tenant ${tenant}: Slack refuses its token (${code}); suspended: no calls, data kept, checked again until Slack accepts it or ${Math.round(windowMs / 1000)} s have passed`,
  );
  return hold.nextCheckAt;
}

/**
 * Removes the install an uninstall signal was about (with `installId`: only while it is still the tenant's,
 * in one step in the store, so a re-install a moment ago is never deleted). False when nothing was removed.
 */
export async function removeInstall(
  directory: TenantDirectory,
  log: Logger,
  what: { tenant: TenantKey; reason: string; installId: string | undefined; purgeAt: number },
): Promise<boolean> {
  const { tenant, reason, installId, purgeAt } = what;
  try {
    if (await directory.removeTenant(tenant, purgeAt, installId)) return true;
    log.info({ tenant, reason }, 'an uninstall signal about an earlier install of this tenant; ignored');
  } catch (error) {
    // Tried again at the next signal or check: the directory still lists it.
    log.error({ tenant, error: describeError(error) }, 'could not delete the uninstalled tenant yet');
  }
  return false;
}

/**
 * What a tenant's scope tells the set it belongs to: its settings changed here; Slack said the app was
 * uninstalled or its token revoked (checked against this install); Slack refused the stored token (suspended
 * everywhere with its data kept, checked again, uninstalled only if Slack keeps refusing it).
 */
export function scopeCallbacks(
  deps: { directory: TenantDirectory; clock: Clock; config: Config; suspended?: (at: number) => void },
  log: Logger,
  tenant: TenantKey,
  owner: { sync(): Promise<void>; uninstall(reason: string): Promise<void> },
) {
  return {
    changed: () => void owner.sync().catch(() => undefined),
    fatal: (reason: string) => void owner.uninstall(reason).catch(() => undefined),
    refused: (code: string) => {
      suspendTenant(deps, log, tenant, code)
        .then((nextCheckAt) => {
          if (nextCheckAt !== undefined) deps.suspended?.(nextCheckAt);
          return owner.sync();
        })
        .catch(() => undefined);
    },
  };
}

/** Serves one verified request with its tenant's scope (on hold: answered with why); none: acknowledged. */
export async function serve(
  runtime: TenantRuntime | undefined,
  event: InboundRequest,
  source: TenantSource | undefined,
  log: Logger,
): Promise<void> {
  if (!runtime) {
    log.info({ source }, 'a request from a workspace or org without an install; acknowledged, ignored');
    await event.ack();
    return;
  }
  runtime.inFlight++; // never evicted while it serves a request
  try {
    const { hold } = runtime.lifecycle;
    const homeNotice = (user: string, notice: string) => void runtime.slack.publishHoldHome(user, notice);
    if (hold && (await answeredOnHold(event, hold, homeNotice))) return;
    // Not waiting for the scope's start (its jobs resuming, its schedules armed): its state is the
    // process's, already connected, so a cold tenant's first request is answered at once.
    await runtime.slack.receive(event);
  } finally {
    runtime.inFlight--;
  }
}

/** What an uninstall means, as the log says it. */
export function uninstalledLine(tenant: TenantKey, reason: string, purgeDelayMs: number): string {
  const purge = `its other data is purged within ${Math.ceil(purgeDelayMs / 60_000)} min`;
  const stops = 'its calls, polls, schedules, PR follows and owed deliveries stop now';
  return `tenant ${tenant}: ${reason}; ${stops}, its installation and secrets are deleted, ${purge}`;
}

/**
 * The directory named these tenants (any replica's write): those with jobs parked whose hold has lifted (or
 * that are no longer installed: their jobs are then dropped when they run) get them released now, once.
 */
export async function releaseLifted(
  deps: { plane: Pick<QueuePlane, 'hasParked' | 'releaseParked'>; directory: TenantDirectory },
  log: Logger,
  change: DirectoryChange,
): Promise<void> {
  if (change === 'all') return; // the parked jobs' own delay is the net
  for (const tenant of change) {
    try {
      if (!(await deps.plane.hasParked(tenant))) continue;
      const lifecycle = await deps.directory.lifecycle(tenant);
      if (!lifecycle?.hold) await deps.plane.releaseParked(tenant);
    } catch (error) {
      log.warn({ tenant, error: describeError(error) }, 'could not release parked jobs yet; retrying later');
    }
  }
}
