import type { Outbox } from '../delivery/ports.js';
import type { TenantHold, TenantInstallation } from '../tenants/tenant.js';
import { slackTime } from './messages/format.js';

/**
 * Owed only by runtimes that saw the hold and then its lift (a runtime built later never did); the record
 * outlives every replica's next directory sync by far, so no replica owes it twice.
 */
const KEEP_MS = 2 * 24 * 60 * 60 * 1000;

/** What managers are told once Slack calls work again after a hold (they could not be told during it). */
export function holdLiftedText(hold: TenantHold, now: number): string {
  const from = slackTime(hold.since);
  const why =
    hold.state === 'needs_reinstall'
      ? 'it could not renew its Slack token, until docs-agent was installed again'
      : `Slack refused its token (${hold.code})`;
  const minutes = Math.max(1, Math.round((now - hold.since) / 60_000));
  return `docs-agent works again in this workspace. It was paused from ${from} for about ${minutes} min because ${why}: it sent nothing then, and nothing was lost (jobs, schedules and connected projects were kept). Anything it owed was sent once it could.`;
}

/**
 * Tells the tenant's managers the bot knows by id (its installer and the people a manager added), once, that
 * a hold was lifted: a direct message each through the outbox, one key per hold and person, so every replica
 * that applies the lift owes the same ones.
 */
export async function oweHoldLiftedNotices(
  outbox: Outbox,
  what: { installation: TenantInstallation; managers: readonly string[]; hold: TenantHold; now: number },
): Promise<void> {
  const { installation, hold, now } = what;
  const people = [...new Set([installation.installerUserId, ...what.managers])];
  for (const person of people)
    await outbox.owe({
      key: `hold-lifted:${installation.tenant}:${hold.since}:${person}`,
      // A post to a user id lands in the bot's direct messages with them.
      target: { kind: 'post', channel: person, threadTs: null },
      payload: { text: holdLiftedText(hold, now) },
      priority: 'reply',
      keepMs: KEEP_MS,
    });
}
