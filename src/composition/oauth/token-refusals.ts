import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { TenantDirectory } from '../../tenants/ports.js';
import type { TenantInstallation, TenantKey } from '../../tenants/tenant.js';

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
 * Slack refusing a tenant's token is looked up before anything is uninstalled: a token rotated a moment ago
 * (here or on another replica) is refused while the new one works, and a replica that has not read the
 * directory since still sends the old one. Only the stored token, refused by Slack itself, is a revocation.
 * One look-up at a time; refusals meanwhile share its answer.
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
