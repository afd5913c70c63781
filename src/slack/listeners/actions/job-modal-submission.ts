import type { App } from '@slack/bolt';
import { describeError } from '../../../common/errors.js';
import { accessDeniedMessage } from '../../command-text.js';
import {
  CHANNEL_BLOCK,
  INSTRUCTION_BLOCK,
  JOB_MODAL_CALLBACK_ID,
  parseJobSubmission,
  type SubmissionErrors,
  type SubmittedView,
} from '../../messages/job-modal.js';
import { STATE_UNAVAILABLE_TEXT, startFailureNotice } from '../../messages/job-replies.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';
import { type PrivateAnswerClient, tellPrivately } from '../tell-privately.js';
import { checkChannelMembership, type MembersReader, membershipProblem } from './channel-membership.js';
import { alreadyJobThreadText, contextOf, earlierMessages, type ThreadReader } from './thread-reads.js';

export type JobModalSubmissionDeps = Pick<SlackDeps, 'access' | 'logger' | 'afterAck' | 'threads'> & {
  jobs: Pick<SlackDeps['jobs'], 'start' | 'jobOfThread'>;
};

/** The parts of a `view_submission` read here. */
export interface ViewSubmissionArgs {
  ack: (response?: SubmissionErrors) => Promise<void>;
  body: { user: { id: string }; team?: { id: string } | null; view: SubmittedView };
  client: ThreadReader & PrivateAnswerClient & MembersReader;
  context?: { botUserId?: string };
}

export function registerJobModalSubmission(app: App, deps: RequestDeps<JobModalSubmissionDeps>): void {
  app.view(JOB_MODAL_CALLBACK_ID, deps.each(jobModalSubmission) as never);
}

function inForm(text: string, block = INSTRUCTION_BLOCK): SubmissionErrors {
  return { response_action: 'errors', errors: { [block]: text } };
}

/**
 * The job modal submitted: what the user can fix is shown in the modal (`response_action: 'errors'`);
 * otherwise the modal closes and the job starts with its card in the message's thread, which becomes the
 * job's thread. Failures after the modal closed reach the user privately in that channel. From Home, the
 * card starts a new thread in the picked channel, and later failures go to the user's DM with the app.
 */
export function jobModalSubmission(deps: JobModalSubmissionDeps) {
  return async ({ ack, body, client, context }: ViewSubmissionArgs): Promise<void> => {
    const parsed = parseJobSubmission(body.view);
    if (!parsed.ok) {
      await ack('response' in parsed ? parsed.response : inForm(parsed.message));
      return;
    }
    const { refs, instruction, includeContext } = parsed.submission;
    const userId = body.user.id;
    const { channelId, threadTs } = refs;
    if (refs.origin === 'home' && channelId) {
      const access = deps.access.check(userId, channelId);
      if (!access.ok) {
        await ack(inForm(accessDeniedMessage(access.reason, access.ask), CHANNEL_BLOCK));
        return;
      }
      // Home lists every channel: only one the user is in, and the bot already is, may get the job.
      const membership = await checkChannelMembership(client, channelId, userId, context?.botUserId);
      if (!membership.ok) {
        await ack(inForm(membershipProblem(membership), CHANNEL_BLOCK));
        return;
      }
      await ack();
      deps.afterAck(() =>
        startFromHome(deps, client, { teamId: body.team?.id ?? null, userId, channelId, instruction }),
      );
      return;
    }
    if (!channelId || !threadTs) {
      await ack(
        inForm('This form does not say which conversation the job is for. Use the message shortcut.'),
      );
      return;
    }
    const access = deps.access.check(userId, channelId);
    if (!access.ok) {
      await ack(inForm(accessDeniedMessage(access.reason, access.ask)));
      return;
    }
    // The assistant's context channel picks the project: authorised as the assistant does, on submit too.
    const projectChannelId = refs.projectChannelId;
    if (projectChannelId) {
      const project = deps.access.check(userId, projectChannelId);
      if (!project.ok) {
        await ack(inForm(accessDeniedMessage(project.reason, project.ask)));
        return;
      }
      const membership = await checkChannelMembership(client, projectChannelId, userId, context?.botUserId);
      if (!membership.ok) {
        await ack(inForm(membershipProblem(membership)));
        return;
      }
    }
    await ack();
    const tell = (text: string) => tellPrivately(client, { userId, channelId }, text, deps.logger);
    deps.afterAck(async () => {
      let existing: Awaited<ReturnType<typeof deps.jobs.jobOfThread>>;
      try {
        existing = await deps.jobs.jobOfThread(channelId, threadTs);
      } catch (error) {
        deps.logger.warn({ channelId, error: describeError(error) }, 'state store unavailable');
        return tell(STATE_UNAVAILABLE_TEXT);
      }
      if (existing) return tell(alreadyJobThreadText(existing.jobId));
      const context =
        includeContext && refs.messageTs
          ? contextOf(
              deps.threads
                ? await deps.threads.inTurn(channelId, threadTs, refs.messageTs, body.team?.id)
                : await earlierMessages(client, channelId, threadTs, refs.messageTs, body.team?.id),
            )
          : undefined;
      const result = await deps.jobs.start({
        teamId: body.team?.id ?? null,
        channelId,
        threadTs,
        requesterId: userId,
        prompt: instruction,
        ...(context ? { context } : {}),
        origin: 'message_shortcut',
        ...(projectChannelId ? { projectChannelId } : {}),
        ...(refs.messageTs ? { sourceTs: refs.messageTs } : {}),
      });
      if (!result.ok)
        deps.logger.info(
          { channelId, stage: result.stage, error: describeError(result.error) },
          'job did not start',
        );
      const notice = startFailureNotice(result);
      if (notice) await tell(notice);
    });
  };
}

/** A job from Home's "New job": a new card (and thread) in the picked channel, origin `app_home`. */
async function startFromHome(
  deps: JobModalSubmissionDeps,
  client: ViewSubmissionArgs['client'],
  job: { teamId: string | null; userId: string; channelId: string; instruction: string },
): Promise<void> {
  const tell = (text: string) => tellPrivately(client, { userId: job.userId }, text, deps.logger);
  const result = await deps.jobs.start({
    teamId: job.teamId,
    channelId: job.channelId,
    threadTs: null,
    requesterId: job.userId,
    prompt: job.instruction,
    origin: 'app_home',
  });
  if (!result.ok)
    deps.logger.info(
      { channelId: job.channelId, stage: result.stage, error: describeError(result.error) },
      'job from Home did not start',
    );
  const notice = startFailureNotice(result);
  if (notice) await tell(`Your job for <#${job.channelId}> did not start. ${notice}`);
}
