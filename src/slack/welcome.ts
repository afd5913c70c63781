import { describeError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import type { Outbox } from '../delivery/ports.js';
import type { TenantInstallation } from '../tenants/tenant.js';
import { welcomeMessage } from './messages/welcome.js';
import type { SlackGateway } from './slack-gateway.js';

/** How long after an install its runtime still owes the welcome (a start that came late, on any replica). */
export const WELCOME_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface WelcomeDeps {
  gateway: Pick<SlackGateway, 'openDirectMessage'>;
  outbox: Pick<Outbox, 'owe' | 'recorded'>;
  installation: Pick<TenantInstallation, 'tenant' | 'name' | 'installerUserId' | 'installedAt'>;
  now: number;
  logger: Logger;
}

/**
 * Owes the installer the welcome DM, once per install: every start of a fresh tenant's runtime (any replica,
 * within a day of the install) owes it under the same key unless it is recorded already, so a start cut
 * short before it was recorded is made up by the next one, and the outbox sends it once. A re-install keeps
 * its first `installedAt`, so it is not welcomed twice. Opening the DM (conversations.open) is idempotent and comes first: the post is
 * owed to its D… channel, where a post whose outcome was unknown can be looked up.
 */
export async function oweWelcome(
  deps: WelcomeDeps,
): Promise<'owed' | 'already-owed' | 'not-fresh' | 'not-owed'> {
  const { installation, logger } = deps;
  if (deps.now - installation.installedAt > WELCOME_WINDOW_MS) return 'not-fresh';
  const key = `welcome:${installation.tenant}:${installation.installedAt}`;
  // Already recorded by an earlier start: nothing to open or record. Recording it again would mark the
  // tenant due, and a scope built only to look at it would be looked at again (a loop once scopes are
  // evicted for room); opening the DM again would spend a Slack call on every cold start.
  const recorded = await deps.outbox.recorded(key).catch(() => false);
  if (recorded) return 'already-owed';
  let channel: string;
  try {
    channel = await deps.gateway.openDirectMessage(installation.installerUserId);
  } catch (error) {
    // An install from before im:write (missing_scope), or Slack away: the Home checklist still guides them.
    logger.warn({ error: describeError(error) }, 'could not open the DM for the welcome message');
    return 'not-owed';
  }
  try {
    await deps.outbox.owe({
      key,
      target: { kind: 'post', channel, threadTs: null },
      payload: welcomeMessage(installation.name),
      priority: 'intermediate',
    });
  } catch (error) {
    // The state store is away: not recorded, so the next start of this runtime owes it again.
    logger.warn({ error: describeError(error) }, 'could not record the welcome message');
    return 'not-owed';
  }
  return 'owed';
}

/** A tenant runtime's start (OAuth mode): the welcome, in the background; it never fails the start. */
export function welcomeOnStart(
  tenant: { installation: WelcomeDeps['installation'] },
  gateway: WelcomeDeps['gateway'],
  outbox: WelcomeDeps['outbox'],
  clock: { now(): number },
  logger: Logger,
): void {
  void oweWelcome({ gateway, outbox, installation: tenant.installation, now: clock.now(), logger }).then(
    (result) => logger.debug({ result }, 'welcome message looked at'),
  );
}
