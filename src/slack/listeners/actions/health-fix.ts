import type { App, BlockButtonAction } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import { describeError } from '../../../common/errors.js';
import type { Evidence } from '../../../insights/health/evidence.js';
import { decodeEvidenceRef } from '../../../insights/health/evidence-ref.js';
import { isEvidenceId } from '../../../insights/health/health-evidence.js';
import { accessDeniedMessage } from '../../command-text.js';
import { fixRunningText, runningFixOf } from '../../health-fix-claims.js';
import { healthFixModal } from '../../messages/health-modal.js';
import { HEALTH_FIX_ACTION_PREFIX } from '../../messages/health-report.js';
import { type SeenMessage, sharedMessageRef } from '../../posted-message-edits.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';
import { respondSafely } from '../respond-safely.js';

export type HealthFixDeps = Pick<SlackDeps, 'access' | 'logger' | 'shared'> & {
  health?: Pick<NonNullable<SlackDeps['health']>, 'evidence'>;
  /** The channel's running jobs: a gap being fixed is refused at the click (absent: at the submission). */
  jobs?: Pick<SlackDeps['jobs'], 'listWatched'>;
};

/** The parts of a fix button's `block_actions` payload read here. */
export interface HealthFixArgs {
  ack: () => Promise<void>;
  body: {
    trigger_id: string;
    user: { id: string };
    channel?: { id: string };
    container?: { type?: string; message_ts?: string; is_ephemeral?: boolean };
    /** The message clicked, as Slack shows it (its blocks rebuild it once the job started). */
    message?: SeenMessage;
  };
  action: { action_id?: string; value?: string };
  respond: Parameters<typeof respondSafely>[0];
  client: { views: { open(args: { trigger_id: string; view: ModalView }): Promise<unknown> } };
}

/** `health_fix_<kind>_<rank>`: one listener for every row's button. */
export const HEALTH_FIX_ACTION = new RegExp(`^${HEALTH_FIX_ACTION_PREFIX}_(search|page|question)_\\d+$`);

export function registerHealthFixAction(app: App, deps: RequestDeps<HealthFixDeps>): void {
  app.action<BlockButtonAction>(HEALTH_FIX_ACTION, deps.each(healthFixAction) as never);
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
    const running = await runningFix(deps, channelId, found.evidence);
    if (running) return void (await tell(fixRunningText(running)));
    // A shared message (an alert, a posted report) gets the job's card in its thread; an ephemeral report
    // has no thread anyone else could see, so its card stays a new message in the channel.
    const shared = body.container?.is_ephemeral === false ? body.container.message_ts : undefined;
    try {
      const view = healthFixModal(found.evidence, channelId, found.id, shared, action.action_id);
      await client.views.open({ trigger_id: body.trigger_id, view });
    } catch (error) {
      deps.logger.warn({ channelId, error: describeError(error) }, 'could not open the fix modal');
      await tell("I couldn't open the form (Slack took too long or refused it). Click the button again.");
      return;
    }
    // Our own message (not a link preview's host): kept as shown, so the job's start can mark its row.
    const ref = body.container?.type === 'message' ? sharedMessageRef(channelId, shared) : undefined;
    if (ref && body.message && deps.shared)
      await deps.shared.remember(ref.channel, ref.ts, body.message).catch((error: unknown) => {
        deps.logger.warn({ channelId, error: describeError(error) }, 'could not keep the clicked message');
      });
  };
}

/** The job fixing this gap in this channel, if one runs (a failed read leaves it to the submission). */
async function runningFix(deps: HealthFixDeps, channelId: string, evidence: Evidence) {
  try {
    return deps.jobs && runningFixOf(await deps.jobs.listWatched(channelId), evidence);
  } catch (error) {
    deps.logger.warn({ channelId, error: describeError(error) }, 'could not check the running fixes');
    return undefined;
  }
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
