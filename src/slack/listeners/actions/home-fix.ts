import type { App } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import { describeError } from '../../../common/errors.js';
import type { Evidence } from '../../../insights/health/evidence.js';
import { decodeEvidenceRef } from '../../../insights/health/evidence-ref.js';
import { isEvidenceId } from '../../../insights/health/health-evidence.js';
import { accessDeniedMessage } from '../../command-text.js';
import { fixRunningText, runningFixOf } from '../../health-fix-claims.js';
import { healthFixModal } from '../../messages/health-modal.js';
import { HOME_FIX_ACTION } from '../../messages/home-this-week.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';
import { homeAccess } from './home-reports.js';

export type HomeFixDeps = Pick<SlackDeps, 'access' | 'logger'> & {
  health?: Pick<NonNullable<SlackDeps['health']>, 'evidence'>;
  /** Every channel's running jobs: a gap some job is fixing is refused at the click. */
  jobs?: Pick<SlackDeps['jobs'], 'listWatched'>;
};

/** The parts of the `block_actions` payload of Fix on Home's top gap read here. */
export interface HomeFixArgs {
  ack: () => Promise<void>;
  body: { trigger_id: string; user: { id: string } };
  action: { value?: string };
  client: { views: { open(args: { trigger_id: string; view: ModalView }): Promise<unknown> } };
}

export function registerHomeFixAction(app: App, deps: RequestDeps<HomeFixDeps>): void {
  app.action(HOME_FIX_ACTION, deps.each(homeFix) as never);
}

const GONE =
  "This gap is no longer on file. Open Home again for this week's top gap, or press *Health* for the report.";

/** A short modal in place of the form: Home has no thread to answer in. */
function sayModal(text: string): ModalView {
  return {
    type: 'modal',
    title: { type: 'plain_text', text: 'Fix a docs gap' },
    close: { type: 'plain_text', text: 'Close' },
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
  };
}

/**
 * Fix on Home's "This week" gap: the `/docs-health` fix form, with a channel picker for the job's card
 * (Home has none); its submission is the report's (access to that channel, one job per gap). A gap whose
 * job already runs is refused here, naming its thread.
 */
export function homeFix(deps: HomeFixDeps) {
  return async ({ ack, body, action, client }: HomeFixArgs): Promise<void> => {
    await ack();
    const open = (view: ModalView) =>
      client.views.open({ trigger_id: body.trigger_id, view }).catch((error: unknown) => {
        deps.logger.warn({ error: describeError(error) }, 'could not open the fix form from Home');
      });
    const access = homeAccess(deps, body.user.id);
    if (!access.ok) return void (await open(sayModal(accessDeniedMessage(access.reason, access.ask))));
    let found: { evidence: Evidence; id: string | undefined } | undefined;
    let running: Parameters<typeof fixRunningText>[0] | undefined;
    try {
      found = await evidenceOf(action.value, deps.health?.evidence);
      if (found && deps.jobs) running = runningFixOf(await deps.jobs.listWatched(), found.evidence);
    } catch (error) {
      deps.logger.warn({ error: describeError(error) }, 'could not read the gap for a fix from Home');
      return void (await open(
        sayModal(
          "I couldn't read this gap (the bot's storage did not answer). Press *Fix* again in a minute.",
        ),
      ));
    }
    if (!found) return void (await open(sayModal(GONE)));
    if (running) return void (await open(sayModal(fixRunningText(running))));
    await open(healthFixModal(found.evidence, undefined, found.id));
  };
}

/** The evidence of the button's value: an id in the evidence store, or the evidence itself. */
async function evidenceOf(
  value: string | undefined,
  store: Pick<NonNullable<SlackDeps['health']>, 'evidence'>['evidence'],
): Promise<{ evidence: Evidence; id: string | undefined } | undefined> {
  if (value === undefined) return undefined;
  if (!store) {
    const evidence = decodeEvidenceRef(value);
    return evidence && { evidence, id: undefined };
  }
  const evidence = await store.load(value);
  return evidence && { evidence, id: isEvidenceId(value) ? value : await store.save(evidence) };
}
