import type { App } from '@slack/bolt';
import { describeError } from '../../../common/errors.js';
import {
  AGENT_STOP_ACTIONS,
  AGENT_STOP_INSTRUCT,
  parseStopChoiceValue,
  STOP_INSTRUCTION,
  type StopChoiceOutcome,
  stopChoiceMessage,
} from '../../messages/agent-session.js';
import { describeDocsFailure } from '../../messages/failures.js';
import { secretRefusalText } from '../../messages/secret-notice.js';
import type { ButtonArgs } from '../args.js';
import type { AgentSessions, SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';
import { respondSafely } from '../respond-safely.js';

export type StopChoiceDeps = Pick<SlackDeps, 'logger' | 'access' | 'limits'> & {
  jobs: Pick<SlackDeps['jobs'], 'resumeFollowing' | 'followUp' | 'claimOnce' | 'confirmOnce' | 'releaseOnce'>;
  sessions: AgentSessions;
};

export function registerAgentStopChoice(app: App, deps: RequestDeps<StopChoiceDeps>): void {
  app.action(AGENT_STOP_ACTIONS, deps.each(agentStopChoice) as never);
}

/**
 * The two choices after Stop: send the agent a stop instruction (a follow-up), or keep following the job.
 * Either acts once per stopped run across replicas (a claim in the state store); the buttons are then
 * replaced by who chose what. Only the job's requester (or an admin) may choose.
 */
export function agentStopChoice(deps: StopChoiceDeps) {
  return async ({ ack, body, action, respond }: ButtonArgs): Promise<void> => {
    await ack();
    const tell = (text: string) => respondSafely(respond, { text }, deps.logger, { replaceOriginal: false });
    const choice = parseStopChoiceValue(action.value);
    const channelId = body.channel?.id ?? body.container?.channel_id;
    const messageTs = body.message?.ts ?? body.container?.message_ts;
    if (!choice || typeof channelId !== 'string' || typeof messageTs !== 'string') {
      await tell(':warning: I could not tell which job this button is about.');
      return;
    }
    const userId = body.user.id;
    const record = await deps.sessions.job(choice.jobId).catch(() => undefined);
    if (!record) {
      await tell(':warning: I could not read this job right now. Try again in a minute.');
      return;
    }
    if (record.requesterId !== userId && !deps.access.isAdmin(userId)) {
      await tell(`Only <@${record.requesterId}>, who asked for this job, can choose what happens to it.`);
      return;
    }
    const once = `agent-stop-choice:${choice.jobId}:${choice.generation}`;
    if (!(await deps.jobs.claimOnce(once).catch(() => false))) {
      await tell(stopChoiceMessage({ kind: 'already_chosen' }).text);
      return;
    }
    let outcome: StopChoiceOutcome;
    try {
      outcome =
        action.action_id === AGENT_STOP_INSTRUCT
          ? await instruct(deps, choice.jobId, userId)
          : await keepFollowing(deps, choice, userId);
    } catch (error) {
      deps.logger.error({ jobId: choice.jobId, error: describeError(error) }, 'stop choice failed');
      await deps.jobs.releaseOnce(once).catch(() => undefined);
      await tell(":warning: That didn't work (my storage did not answer). Try again in a minute.");
      return;
    }
    // A refused instruction may be tried again; everything else was this run's one choice.
    if (outcome.kind === 'instruction_refused') {
      await deps.jobs.releaseOnce(once).catch(() => undefined);
      await tell(stopChoiceMessage(outcome).text);
      return;
    }
    await deps.jobs.confirmOnce(once);
    await deps.sessions.replace(channelId, messageTs, stopChoiceMessage(outcome));
  };
}

async function instruct(deps: StopChoiceDeps, jobId: string, userId: string): Promise<StopChoiceOutcome> {
  const result = await deps.jobs.followUp({
    jobId,
    prompt: `${STOP_INSTRUCTION} (Sent from Slack by ${userId}.)`,
  });
  if (result.ok || result.reason === 'not_recorded') return { kind: 'instructed', userId };
  if (result.reason === 'unknown_job') return { kind: 'stale' };
  if (result.reason === 'secret')
    return { kind: 'instruction_refused', reason: secretRefusalText(result.kind) };
  const reason = describeDocsFailure(result.error, Date.now(), 'send it', deps.limits ?? {});
  return { kind: 'instruction_refused', reason };
}

async function keepFollowing(
  deps: StopChoiceDeps,
  choice: { jobId: string; generation: number },
  userId: string,
): Promise<StopChoiceOutcome> {
  const result = await deps.jobs.resumeFollowing(choice.jobId, choice.generation);
  if (!result.ok) return { kind: 'stale' };
  await deps.sessions.following(result.record);
  return { kind: 'following', userId };
}
