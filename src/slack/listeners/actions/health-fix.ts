import type { App, BlockButtonAction } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import { describeError } from '../../../common/errors.js';
import { decodeEvidenceRef } from '../../../insights/health/evidence-ref.js';
import { accessDeniedMessage } from '../../command-text.js';
import { healthFixModal } from '../../messages/health-modal.js';
import { HEALTH_FIX_ACTION_PREFIX } from '../../messages/health-report.js';
import type { SlackDeps } from '../deps.js';
import { respondSafely } from '../respond-safely.js';

export type HealthFixDeps = Pick<SlackDeps, 'access' | 'logger'>;

/** The parts of a fix button's `block_actions` payload read here. */
export interface HealthFixArgs {
  ack: () => Promise<void>;
  body: { trigger_id: string; user: { id: string }; channel?: { id: string } };
  action: { value?: string };
  respond: Parameters<typeof respondSafely>[0];
  client: { views: { open(args: { trigger_id: string; view: ModalView }): Promise<unknown> } };
}

/** `health_fix_<kind>_<rank>`: one listener for every row's button. */
export const HEALTH_FIX_ACTION = new RegExp(`^${HEALTH_FIX_ACTION_PREFIX}_(search|page|question)_\\d+$`);

export function registerHealthFixAction(app: App, deps: HealthFixDeps): void {
  app.action<BlockButtonAction>(HEALTH_FIX_ACTION, healthFixAction(deps) as never);
}

/**
 * A fix button on a `/docs-health` row: opens the modal prefilled with an instruction naming the evidence.
 * The evidence travels in the button's value, so the modal opens at once, inside the trigger_id's 3 s.
 */
export function healthFixAction(deps: HealthFixDeps) {
  return async ({ ack, body, action, respond, client }: HealthFixArgs): Promise<void> => {
    await ack();
    const tell = (text: string) => respondSafely(respond, { text }, deps.logger, { replaceOriginal: false });
    const channelId = body.channel?.id;
    const evidence = action.value === undefined ? undefined : decodeEvidenceRef(action.value);
    if (!channelId || !evidence) {
      await tell('This button no longer works. Run `/docs-health` again.');
      return;
    }
    const access = deps.access.check(body.user.id, channelId);
    if (!access.ok) {
      await tell(accessDeniedMessage(access.reason));
      return;
    }
    try {
      await client.views.open({ trigger_id: body.trigger_id, view: healthFixModal(evidence, channelId) });
    } catch (error) {
      deps.logger.warn({ channelId, error: describeError(error) }, 'could not open the fix modal');
      await tell("I couldn't open the form (Slack took too long or refused it). Click the button again.");
    }
  };
}
