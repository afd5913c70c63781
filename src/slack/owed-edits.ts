import { AppError, errorCode } from '../common/errors.js';
import type { Delivery, DeliveryTarget } from '../delivery/domain.js';
import { DeliveryAttemptError } from '../delivery/ports.js';

/** Applies a change owed to a shared message (`edit` deliveries) to its latest state, owing its update. */
export interface OwedEdits {
  apply(channel: string, ts: string, edit: unknown): Promise<void>;
}

/**
 * Where the outbox's sender finds the shared messages, which are built after it (they owe through it): set
 * once at wiring. An edit due before that is retried, never lost.
 */
export class OwedEditsSlot implements OwedEdits {
  private target: OwedEdits | undefined;

  use(target: OwedEdits): void {
    this.target = target;
  }

  apply(channel: string, ts: string, edit: unknown): Promise<void> {
    if (!this.target) throw new AppError('owed_edits_not_ready', 'shared messages are not wired yet');
    return this.target.apply(channel, ts, edit);
  }
}

/**
 * One attempt of an `edit` delivery: under the lease, the change is applied and its update owed (done when
 * that is recorded; the update itself is confirmed by Slack on its own key). A failure is retried.
 */
export async function applyOwedEdit(
  edits: OwedEdits | undefined,
  target: Extract<DeliveryTarget, { kind: 'edit' }>,
  lease: () => Promise<Delivery | undefined>,
) {
  if (!edits) throw new DeliveryAttemptError({ kind: 'permanent', code: 'edits_unsupported' });
  const ready = await lease();
  if (!ready) return { sent: false as const };
  try {
    await edits.apply(target.channel, target.ts, target.edit);
  } catch (error) {
    throw new DeliveryAttemptError({ kind: 'not_sent', code: errorCode(error) ?? 'edit_failed' });
  }
  return { sent: true as const, delivery: ready, ts: undefined };
}
