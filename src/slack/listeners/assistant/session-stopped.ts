import type { App } from '@slack/bolt';
import { describeError } from '../../../common/errors.js';
import { nothingToStopMessage } from '../../messages/agent-session.js';
import type { AgentSessions, SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';

export type SessionStoppedDeps = Pick<SlackDeps, 'logger' | 'afterAck' | 'access'> & {
  jobs: Pick<
    SlackDeps['jobs'],
    'jobOfThread' | 'stopFollowing' | 'claimOnce' | 'confirmOnce' | 'releaseOnce'
  >;
  sessions: AgentSessions;
};

/** `agent_session_stopped` as the bot reads it (fields are text from outside: ids checked). */
export interface SessionStop {
  channelId: string;
  threadTs: string;
  userId: string;
  eventTs: string;
  /** The streams Slack itself already stopped. */
  streams: string[];
}

const CHANNEL_ID = /^[CGD][A-Z0-9]{2,30}$/;
const USER_ID = /^[UW][A-Z0-9]{2,30}$/;
const TS = /^\d{1,12}\.\d{1,9}$/;

export function stopOfEvent(event: unknown): SessionStop | undefined {
  const e = (event ?? {}) as Record<string, unknown>;
  const { channel, thread_ts: threadTs, user, event_ts: eventTs } = e;
  if (typeof channel !== 'string' || !CHANNEL_ID.test(channel)) return undefined;
  if (typeof threadTs !== 'string' || !TS.test(threadTs)) return undefined;
  if (typeof user !== 'string' || !USER_ID.test(user)) return undefined;
  const streams = Array.isArray(e.streaming_message_ts)
    ? e.streaming_message_ts.filter((ts): ts is string => typeof ts === 'string' && TS.test(ts)).slice(0, 50)
    : [];
  return {
    channelId: channel,
    threadTs,
    userId: user,
    eventTs: typeof eventTs === 'string' && TS.test(eventTs) ? eventTs : threadTs,
    streams,
  };
}

/**
 * The person pressed Slack's Stop on an agent session (Bolt has no listener of its own for it). Acknowledged
 * at once; then, once per event across replicas: the thread's job is no longer followed (by any replica),
 * its stream ends with one honest line and two choices, and the session returns to idle.
 */
export function registerAgentSessionStopped(app: App, deps: RequestDeps<SessionStoppedDeps>): void {
  app.event('agent_session_stopped', deps.each(sessionStopped) as never);
}

export function sessionStopped(deps: SessionStoppedDeps) {
  return async ({ event }: { event: unknown }): Promise<void> => {
    const stop = stopOfEvent(event);
    if (!stop) return;
    deps.afterAck(() => handleStop(deps, stop));
  };
}

export async function handleStop(deps: SessionStoppedDeps, stop: SessionStop): Promise<void> {
  const { channelId, threadTs } = stop;
  const once = `agent-stop-event:${channelId}:${threadTs}:${stop.eventTs}`;
  if (!(await deps.jobs.claimOnce(once).catch(() => true))) return;
  try {
    const record = await deps.jobs.jobOfThread(channelId, threadTs);
    const allowed =
      record && (record.requesterId === stop.userId || deps.access.isAdmin(stop.userId))
        ? true
        : deps.access.check(stop.userId, channelId).ok;
    if (record && !allowed) {
      // Not theirs to stop: the job stays followed (its next update shows the session working again).
      deps.logger.warn({ channelId, jobId: record.jobId }, 'Stop pressed by someone not allowed; ignored');
      deps.sessions.idle(channelId, threadTs);
      await deps.jobs.confirmOnce(once);
      return;
    }
    if (!record?.watching) {
      await nothingToStop(deps, stop, record);
      await deps.jobs.confirmOnce(once);
      return;
    }
    const before = await deps.sessions.stopping(record);
    const result = await deps.jobs.stopFollowing(record.jobId);
    if (result.ok) await deps.sessions.stopped(result.record, stop.streams, before);
    else await nothingToStop(deps, stop, result.record);
    deps.logger.info({ channelId, jobId: record.jobId, stopped: result.ok }, 'agent session stopped');
    await deps.jobs.confirmOnce(once);
  } catch (error) {
    deps.logger.error({ channelId, error: describeError(error) }, 'could not stop an agent session');
    await deps.jobs.releaseOnce(once).catch(() => undefined);
    // Out of `processing` whatever happened: a Stop button that spins forever helps nobody.
    deps.sessions.idle(channelId, threadTs);
    await deps.sessions
      .reply(`agent-stop-failed:${channelId}:${threadTs}:${stop.eventTs}`, channelId, threadTs, {
        text: STOP_FAILED_TEXT,
        blocks: [{ type: 'section', text: { type: 'mrkdwn', text: STOP_FAILED_TEXT } }],
      })
      .catch(() => undefined);
  }
}

const STOP_FAILED_TEXT =
  ":warning: I couldn't stop following this job (my storage did not answer), so its progress and result may still be posted here. Press Stop again in a minute.";

async function nothingToStop(
  deps: SessionStoppedDeps,
  stop: SessionStop,
  record: Parameters<typeof nothingToStopMessage>[0],
): Promise<void> {
  deps.sessions.idle(stop.channelId, stop.threadTs);
  const key = `agent-stop-none:${stop.channelId}:${stop.threadTs}:${stop.eventTs}`;
  await deps.sessions.reply(key, stop.channelId, stop.threadTs, nothingToStopMessage(record));
}
