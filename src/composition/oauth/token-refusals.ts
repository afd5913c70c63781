import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { TenantDirectory } from '../../tenants/ports.js';
import type { TenantInstallation, TenantKey, TenantSuspension } from '../../tenants/tenant.js';

/**
 * `not_authed` means no token reached Slack (a proxy dropping the Authorization header, a bug of ours):
 * it says nothing about the tenant's token, so it never counts as a refusal.
 */
export const refusalCounts = (code: string): boolean => code !== 'not_authed';

export interface TokenRefusalDeps {
  tenant: TenantKey;
  directory: Pick<TenantDirectory, 'installation'>;
  /** The installation this runtime holds now. */
  held(): TenantInstallation;
  /** Asks Slack whether it takes a token: false when refused, undefined when it could not tell. */
  tokenAccepted(token: string): Promise<boolean | undefined>;
  /** The directory holds something newer than this runtime: read it now. */
  changed(): void;
  logger: Logger;
}

/**
 * Slack refusing a tenant's token is looked up before anything happens: a token rotated a moment ago (here
 * or on another replica) is refused while the new one works, and a replica that has not read the directory
 * since still sends the old one. Only the stored token, refused by Slack itself, is confirmed (and then the
 * tenant is suspended, never uninstalled at once). One look-up at a time; refusals meanwhile share its answer.
 */
export function tokenRefusalCheck(deps: TokenRefusalDeps): () => Promise<boolean> {
  let pending: Promise<boolean> | undefined;
  const lookUp = async (): Promise<boolean> => {
    try {
      const stored = await deps.directory.installation(deps.tenant);
      if (!stored || stored.botToken !== deps.held().botToken) {
        // Rotated or uninstalled elsewhere: the next read of the directory applies it.
        deps.logger.info({}, 'Slack refused an older token of this tenant; reading its install again');
        deps.changed();
        return false;
      }
      return (await deps.tokenAccepted(stored.botToken)) === false;
    } catch (error) {
      // Could not tell: the next refusal asks again.
      deps.logger.warn(
        { error: describeError(error) },
        'could not look up a refused token; asking again later',
      );
      return false;
    }
  };
  return () => {
    pending ??= lookUp().finally(() => {
      pending = undefined;
    });
    return pending;
  };
}

/** The first check of a suspended tenant comes after this (shorter for a short window), then doubles. */
const FIRST_CHECK_MS = 30_000;

function checkDelay(windowMs: number, checks: number): number {
  const first = Math.min(FIRST_CHECK_MS, windowMs / 8);
  return Math.min(first * 2 ** checks, Math.max(first, windowMs / 4));
}

/** A tenant whose stored token Slack refused (`code`): no calls from now, data kept, checked again later. */
export function suspension(now: number, code: string, windowMs: number): TenantSuspension {
  return { state: 'suspended', since: now, checks: 0, nextCheckAt: now + checkDelay(windowMs, 0), code };
}

export type SuspensionCheck =
  | { next: 'lift' }
  | { next: 'uninstall' }
  | { next: 'wait'; hold: TenantSuspension };

/**
 * What one check of a suspended tenant's stored token decides: Slack took it (lift the suspension), refused
 * it through the whole window (uninstall), or else check again later (an answer that says nothing about the
 * token, a network error or `not_authed`, moves the next check only).
 */
export function afterCheck(
  hold: TenantSuspension,
  accepted: boolean | undefined,
  now: number,
  windowMs: number,
): SuspensionCheck {
  if (accepted === true) return { next: 'lift' };
  if (accepted === false && now - hold.since >= windowMs) return { next: 'uninstall' };
  const checks = hold.checks + 1;
  return { next: 'wait', hold: { ...hold, checks, nextCheckAt: now + checkDelay(windowMs, checks) } };
}
