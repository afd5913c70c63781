import type { App } from '@slack/bolt';
import { describeError } from '../../../common/errors.js';
import { accessDeniedMessage } from '../../command-text.js';
import {
  EmptySourceMessageError,
  jobFromMessage,
  reactionDedupeKey,
  type SourceMessage,
} from '../../message-source.js';
import { describeSlackDeliveryFailure } from '../../messages/failures.js';
import { STATE_UNAVAILABLE_TEXT } from '../../messages/job-replies.js';
import { alreadyJobThreadText } from '../actions/thread-reads.js';
import type { SlackDeps } from '../deps.js';

export type ReactionAddedDeps = Pick<SlackDeps, 'access' | 'logger' | 'afterAck' | 'jobReaction'> & {
  jobs: Pick<SlackDeps['jobs'], 'start' | 'claimOnce' | 'confirmOnce' | 'releaseOnce' | 'jobOfThread'>;
};

type ReadArgs = {
  channel: string;
  ts?: string;
  latest: string;
  oldest?: string;
  inclusive: boolean;
  limit: number;
};
type Read = (args: ReadArgs) => Promise<{ messages?: SourceMessage[] }>;

/** The parts of a `reaction_added` delivery read here, and the Web API calls made. */
export interface ReactionAddedArgs {
  event: { reaction: string; user: string; item: { type: string; channel?: string; ts?: string } };
  body: { team_id?: string };
  client: {
    conversations: { history: Read; replies: (args: ReadArgs & { ts: string }) => ReturnType<Read> };
    chat: { postEphemeral(args: { channel: string; user: string; text: string }): Promise<unknown> };
  };
}

export function registerReactionAdded(app: App, deps: ReactionAddedDeps): void {
  app.event('reaction_added', reactionAdded(deps) as never);
}

const CANNOT_READ =
  "I can't read that message, so I started nothing. Invite me to the channel (`/invite @docs-agent`) and add the reaction again.";

/**
 * The configured emoji on a message starts a job from that message: its card in the message's thread,
 * the reacting user as requester. Once per message whoever reacts (a claim on the message), so a second
 * reaction or a redelivery starts nothing; the claim is given back when nothing was started.
 */
export function reactionAdded(deps: ReactionAddedDeps) {
  return async ({ event, body, client }: ReactionAddedArgs): Promise<void> => {
    const { channel, ts } = event.item;
    if (event.reaction !== (deps.jobReaction ?? 'memo') || event.item.type !== 'message' || !channel || !ts)
      return;
    deps.afterAck(() =>
      startFromReaction(deps, client, { channel, ts, user: event.user, team: body.team_id }),
    );
  };
}

async function startFromReaction(
  deps: ReactionAddedDeps,
  client: ReactionAddedArgs['client'],
  item: { channel: string; ts: string; user: string; team: string | undefined },
): Promise<void> {
  const tell = async (text: string) => {
    try {
      await client.chat.postEphemeral({ channel: item.channel, user: item.user, text });
    } catch (error) {
      deps.logger.info(
        { channelId: item.channel, error: describeError(error) },
        'could not tell the reacting user',
      );
    }
  };
  const access = deps.access.check(item.user, item.channel);
  if (!access.ok) return tell(accessDeniedMessage(access.reason));
  const key = reactionDedupeKey(item.team, item.channel, item.ts);
  let claimed: boolean;
  try {
    claimed = await deps.jobs.claimOnce(key);
  } catch (error) {
    deps.logger.warn({ error: describeError(error) }, 'state store unavailable');
    return tell(STATE_UNAVAILABLE_TEXT);
  }
  if (!claimed) {
    deps.logger.debug({ channelId: item.channel, ts: item.ts }, 'message already sent to the docs agent');
    return;
  }
  let started = false;
  try {
    const message = await readMessage(client, item.channel, item.ts);
    if (!message) return await tell(CANNOT_READ);
    const source = jobFromMessage(message);
    const existing = await deps.jobs.jobOfThread(item.channel, source.threadTs);
    if (existing) return await tell(alreadyJobThreadText(existing.jobId));
    const result = await deps.jobs.start({
      teamId: item.team ?? null,
      channelId: item.channel,
      threadTs: source.threadTs,
      requesterId: item.user,
      prompt: source.instruction,
      origin: 'reaction',
      sourceTs: item.ts,
    });
    started = result.ok;
    if (started) await deps.jobs.confirmOnce(key).catch(() => undefined);
    if (!result.ok && result.stage === 'state') await tell(STATE_UNAVAILABLE_TEXT);
    if (!result.ok && result.stage === 'card')
      await tell(describeSlackDeliveryFailure((result.error as { code?: string }).code));
  } catch (error) {
    if (error instanceof EmptySourceMessageError)
      await tell(`${error.message} React to a message with text.`);
    else {
      deps.logger.warn(
        { channelId: item.channel, error: describeError(error) },
        'could not read the reacted message',
      );
      await tell(CANNOT_READ);
    }
  } finally {
    // Nothing started (unreadable, empty, state down, card refused): the user may react again.
    if (!started) await deps.jobs.releaseOnce(key).catch(() => undefined);
  }
}

/** The message at `ts`: top-level from the history, else a reply read from its thread. */
async function readMessage(
  client: ReactionAddedArgs['client'],
  channel: string,
  ts: string,
): Promise<SourceMessage | undefined> {
  const window = { channel, latest: ts, inclusive: true, limit: 1 };
  const top = await client.conversations.history(window);
  const found = top.messages?.find((m) => m.ts === ts);
  if (found) return found;
  // A reply: conversations.replies with the reply's ts answers its thread (parent first).
  const thread = await client.conversations.replies({ ...window, ts, oldest: ts, limit: 2 });
  return thread.messages?.find((m) => m.ts === ts);
}
