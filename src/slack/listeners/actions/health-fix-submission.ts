import type { App } from '@slack/bolt';
import { describeError } from '../../../common/errors.js';
import type { Evidence } from '../../../insights/health/evidence.js';
import { decodeEvidenceRef, encodeEvidenceRef } from '../../../insights/health/evidence-ref.js';
import { fixPrompt } from '../../../insights/health/instruction.js';
import type { JobRecord } from '../../../jobs/domain/job.js';
import { accessDeniedMessage } from '../../command-text.js';
import { fixClaimKey, fixRunningText, fixStartingText, runningFixOf } from '../../health-fix-claims.js';
import {
  HEALTH_INSTRUCTION_BLOCK,
  HEALTH_MODAL_CALLBACK,
  parseHealthFixSubmission,
} from '../../messages/health-modal.js';
import type { SubmissionErrors, SubmittedView } from '../../messages/job-modal.js';
import { startFailureNotice } from '../../messages/job-replies.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';
import { type PrivateAnswerClient, tellPrivately } from '../tell-privately.js';

export type HealthFixSubmissionDeps = Pick<SlackDeps, 'access' | 'logger' | 'afterAck' | 'shared'> & {
  jobs: Pick<SlackDeps['jobs'], 'start' | 'listWatched' | 'claimOnce' | 'releaseOnce' | 'jobOfThread'>;
  health?: Pick<NonNullable<SlackDeps['health']>, 'evidence'>;
};

/** The parts of a `view_submission` read here. */
export interface HealthFixSubmissionArgs {
  ack: (response?: SubmissionErrors) => Promise<void>;
  body: { user: { id: string }; team?: { id: string } | null; view: SubmittedView };
  client: PrivateAnswerClient;
}

export function registerHealthFixSubmission(app: App, deps: RequestDeps<HealthFixSubmissionDeps>): void {
  app.view(HEALTH_MODAL_CALLBACK, deps.each(healthFixSubmission) as never);
}

const LOST_EVIDENCE =
  'This form lost track of the report it came from (reports keep their evidence 7 days). Run `/docs-health` again.';

const STORAGE_DOWN =
  "I didn't start the fix: the bot's storage did not answer, so I couldn't check nobody else is fixing this gap. Submit again in a minute.";

const inForm = (text: string): SubmissionErrors => ({
  response_action: 'errors',
  errors: { [HEALTH_INSTRUCTION_BLOCK]: text },
});

/**
 * The fix modal submitted: the job starts as any other (access rules, budget, card, polling, one terminal
 * reply), its card in the thread of the alert or posted report clicked (a new message in the channel for an
 * ephemeral report), naming the evidence, which the record keeps
 * for the "did it work?" post. Failures after the modal closed reach the user privately.
 */
export function healthFixSubmission(deps: HealthFixSubmissionDeps) {
  return async ({ ack, body, client }: HealthFixSubmissionArgs): Promise<void> => {
    const parsed = parseHealthFixSubmission(body.view);
    if (!parsed.ok) {
      await ack('response' in parsed ? parsed.response : inForm(parsed.message));
      return;
    }
    const userId = body.user.id;
    const { channelId, instruction } = parsed;
    // The job record keeps the evidence itself (the card names it, the impact check measures it again), and
    // the agent gets the readers' data after the person's request, quoted as data.
    let evidence: Evidence | undefined;
    if ('ref' in parsed.evidence) evidence = decodeEvidenceRef(parsed.evidence.ref);
    else {
      try {
        evidence = await deps.health?.evidence?.load(parsed.evidence.id);
      } catch (error) {
        deps.logger.warn({ channelId, error: describeError(error) }, 'could not read the fix evidence');
        await ack(
          inForm(
            "I couldn't read this gap's evidence (the bot's storage did not answer). Submit again in a minute.",
          ),
        );
        return;
      }
    }
    if (!evidence) {
      await ack(inForm(LOST_EVIDENCE));
      return;
    }
    const evidenceRef = encodeEvidenceRef(evidence);
    const access = deps.access.check(userId, channelId);
    if (!access.ok) {
      await ack(inForm(accessDeniedMessage(access.reason, access.ask)));
      return;
    }
    await ack();
    const tell = (text: string) => tellPrivately(client, { userId, channelId }, text, deps.logger);
    deps.afterAck(async () => {
      // One job per gap: the claim (atomic in the store) lets one submission through while it starts; a
      // watched job fixing the same gap refuses the rest until it ends.
      const claim = fixClaimKey(channelId, evidence);
      let claimed: boolean;
      try {
        claimed = await deps.jobs.claimOnce(claim);
      } catch (error) {
        deps.logger.warn({ channelId, error: describeError(error) }, 'could not claim the fix');
        return tell(STORAGE_DOWN);
      }
      if (!claimed) return tell(fixStartingText(channelId, parsed.threadTs));
      try {
        const running = runningFixOf(await deps.jobs.listWatched(channelId), evidence);
        if (running) return await tell(fixRunningText(running));
        // A thread is one job's conversation: a second row fixed from the same report gets its own card.
        const threadTs =
          parsed.threadTs && !(await deps.jobs.jobOfThread(channelId, parsed.threadTs))
            ? parsed.threadTs
            : null;
        const result = await deps.jobs.start({
          teamId: body.team?.id ?? null,
          channelId,
          threadTs,
          requesterId: userId,
          prompt: fixPrompt(instruction, evidence),
          origin: 'health_fix',
          evidenceRef,
        });
        if (result.ok) await markFixing(deps, parsed, result.record);
        else
          deps.logger.info(
            { channelId, stage: result.stage, error: describeError(result.error) },
            'fix job did not start',
          );
        const notice = startFailureNotice(result);
        if (notice) await tell(`Your fix job for <#${channelId}> did not start. ${notice}`);
      } catch (error) {
        deps.logger.warn({ channelId, error: describeError(error) }, 'could not check the running fixes');
        await tell(STORAGE_DOWN);
      } finally {
        // Started (now watched, so found above) or not: the next submission decides on the store's state.
        await deps.jobs.releaseOnce(claim).catch((error: unknown) => {
          deps.logger.warn({ channelId, error: describeError(error) }, 'could not release the fix claim');
        });
      }
    });
  };
}

/**
 * The shared message the Fix was clicked on shows, for everyone, that its row is being fixed: by whom,
 * since when, and where the job is (owed through the outbox; a failure only costs the line).
 */
async function markFixing(
  deps: HealthFixSubmissionDeps,
  parsed: { channelId: string; threadTs?: string; row?: string },
  record: JobRecord,
): Promise<void> {
  const { channelId, threadTs, row } = parsed;
  if (!deps.shared || !threadTs || !row) return;
  await deps.shared.fixStarted(channelId, threadTs, row, record).catch((error: unknown) => {
    deps.logger.warn({ channelId, error: describeError(error) }, 'could not mark the row being fixed');
  });
}
