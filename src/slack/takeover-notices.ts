import type { Outbox } from '../delivery/ports.js';
import type { TenantInstallation } from '../tenants/tenant.js';
import { takenOverText } from './messages/tenant-preferences.js';

/** A takeover is told about only while recent (a runtime built much later does not bring it up again). */
const TELL_WITHIN_MS = 24 * 60 * 60 * 1000;
/** The record outlives that window, so no replica owes it twice. */
const KEEP_MS = 2 * TELL_WITHIN_MS;

/**
 * Tells the previous installer, once, that an admin's re-install took over (a direct message through the
 * outbox: one key per takeover, so every replica that applies the new installation owes the same one).
 */
export async function oweTakeoverNotice(
  outbox: Outbox,
  installation: TenantInstallation,
  now: number,
): Promise<void> {
  const takenOver = installation.takenOver;
  if (!takenOver || now - takenOver.at > TELL_WITHIN_MS) return;
  await outbox.owe({
    key: `takeover:${installation.tenant}:${takenOver.at}`,
    // A post to a user id lands in the bot's direct messages with them.
    target: { kind: 'post', channel: takenOver.from, threadTs: null },
    payload: { text: takenOverText(takenOver) },
    priority: 'reply',
    keepMs: KEEP_MS,
  });
}
