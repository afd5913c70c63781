import type { App, BlockButtonAction } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import { describeError } from '../../../common/errors.js';
import type { Evidence } from '../../../insights/health/evidence.js';
import { decodeEvidenceRef } from '../../../insights/health/evidence-ref.js';
import { isEvidenceId } from '../../../insights/health/health-evidence.js';
import { accessDeniedMessage } from '../../command-text.js';
import { healthFixModal } from '../../messages/health-modal.js';
import { HEALTH_FIX_ACTION_PREFIX } from '../../messages/health-report.js';
import type { SlackDeps } from '../deps.js';
import { respondSafely } from '../respond-safely.js';

export type HealthFixDeps = Pick<SlackDeps, 'access' | 'logger'> & {
  health?: Pick<NonNullable<SlackDeps['health']>, 'evidence'>;
};

/** The parts of a fix button's `block_actions` payload read here. */
export interface HealthFixArgs {
  ack: () => Promise<void>;
  body: {
    trigger_id: string;
    user: { id: string };
    channel?: { id: string };
    container?: { message_ts?: string; is_ephemeral?: boolean };
  };
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
 * The button carries the evidence's id in the store (one read, well inside the trigger_id's 3 s); buttons
 * posted before ids carry the evidence itself, which is stored on the way so the modal carries only an id.
 */
export function healthFixAction(deps: HealthFixDeps) {
  return async ({ ack, body, action, respond, client }: HealthFixArgs): Promise<void> => {
    await ack();
    const tell = (text: string) => respondSafely(respond, { text }, deps.logger, { replaceOriginal: false });
    const gone = 'This button no longer works. Run `/docs-health` again.';
    const channelId = body.channel?.id;
    const store = deps.health?.evidence;
    if (!channelId || action.value === undefined) return void (await tell(gone));
    // Access first: someone refused here makes the bot neither read nor store anything.
    const access = deps.access.check(body.user.id, channelId);
    if (!access.ok) {
      await tell(accessDeniedMessage(access.reason, access.ask));
      return;
    }
    let found: { evidence: Evidence; id: string | undefined } | undefined;
    try {
      found = await findEvidence(action.value, store);
    } catch (error) {
      deps.logger.warn({ channelId, error: describeError(error) }, 'could not read the fix evidence');
      await tell(
        "I couldn't read this row's evidence (the bot's storage did not answer). Click the button again in a minute.",
      );
      return;
    }
    if (!found) return void (await tell(gone));
    try {
      // A shared message (an alert, a posted report) gets the job's card in its thread; an ephemeral report
      // has no thread anyone else could see, so its card stays a new message in the channel.
      const shared = body.container?.is_ephemeral === false ? body.container.message_ts : undefined;
      const view = healthFixModal(found.evidence, channelId, found.id, shared);
      await client.views.open({ trigger_id: body.trigger_id, view });
    } catch (error) {
      deps.logger.warn({ channelId, error: describeError(error) }, 'could not open the fix modal');
      await tell("I couldn't open the form (Slack took too long or refused it). Click the button again.");
    }
  };
}

/** The evidence of a button value and the id the modal should carry (undefined: the store is not wired). */
async function findEvidence(
  value: string,
  store: Pick<NonNullable<SlackDeps['health']>, 'evidence'>['evidence'],
): Promise<{ evidence: Evidence; id: string | undefined } | undefined> {
  if (!store) {
    const evidence = decodeEvidenceRef(value);
    return evidence && { evidence, id: undefined };
  }
  const evidence = await store.load(value);
  if (!evidence) return undefined;
  return { evidence, id: isEvidenceId(value) ? value : await store.save(evidence) };
}
