import type { App } from '@slack/bolt';
import { describeError } from '../../../common/errors.js';
import { accessDeniedMessage, tooLongMessage } from '../../command-text.js';
import {
  EmptySourceMessageError,
  isForeignAuthor,
  jobFromMessage,
  labelledMessagePrompt,
  reactionDedupeKey,
} from '../../message-source.js';
import { MAX_PROMPT_CHARS } from '../../messages/help.js';
import { STATE_UNAVAILABLE_TEXT, startFailureNotice } from '../../messages/job-replies.js';
import { reviewMessagePrompt } from '../../messages/review-message.js';
import { alreadyJobThreadText, type MessageReader, readMessage } from '../actions/thread-reads.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';

export type ReactionAddedDeps = Pick<
  SlackDeps,
  'access' | 'logger' | 'afterAck' | 'jobReaction' | 'threads'
> & {
  jobs: Pick<SlackDeps['jobs'], 'start' | 'claimOnce' | 'confirmOnce' | 'releaseOnce' | 'jobOfThread'>;
};

/** The parts of a `reaction_added` delivery read here, and the Web API calls made. */
export interface ReactionAddedArgs {
  event: { reaction: string; user: string; item: { type: string; channel?: string; ts?: string } };
  body: { team_id?: string };
  context?: { teamId?: string };
  client: MessageReader & {
    chat: {
      postEphemeral(args: {
        channel: string;
        user: string;
        text: string;
        blocks?: unknown[];
      }): Promise<unknown>;
    };
  };
}

export function registerReactionAdded(app: App, deps: RequestDeps<ReactionAddedDeps>): void {
  app.event('reaction_added', deps.each(reactionAdded) as never);
}

const CANNOT_READ =
  "I can't read that message, so I started nothing. Invite me to the channel (`/invite @docs-agent`) and add the reaction again.";

/**
 * The configured emoji on a message starts a job from that message: its card in the message's thread,
 * the reacting user as requester, the text labelled with its author. Once per message whoever reacts (a
 * claim on the message), so a second reaction or a redelivery starts nothing; the claim is given back when
 * nothing was started. A message by a bot, an app or another organisation starts nothing unreviewed: the
 * reacting user gets a button that opens the job form (the reaction event has no trigger_id to open it).
 */
export function reactionAdded(deps: ReactionAddedDeps) {
  return async ({ event, body, client, context }: ReactionAddedArgs): Promise<void> => {
    const { channel, ts } = event.item;
    if (event.reaction !== (deps.jobReaction ?? 'memo') || event.item.type !== 'message' || !channel || !ts)
      return;
    deps.afterAck(() =>
      startFromReaction(deps, client, {
        channel,
        ts,
        user: event.user,
        team: body.team_id,
        homeTeam: context?.teamId ?? body.team_id,
      }),
    );
  };
}

async function startFromReaction(
  deps: ReactionAddedDeps,
  client: ReactionAddedArgs['client'],
  item: { channel: string; ts: string; user: string; team: string | undefined; homeTeam: string | undefined },
): Promise<void> {
  const tell = async (text: string, blocks?: unknown[]) => {
    try {
      await client.chat.postEphemeral({
        channel: item.channel,
        user: item.user,
        text,
        ...(blocks ? { blocks } : {}),
      });
    } catch (error) {
      deps.logger.info(
        { channelId: item.channel, error: describeError(error) },
        'could not tell the reacting user',
      );
    }
  };
  const access = deps.access.check(item.user, item.channel);
  if (!access.ok) return tell(accessDeniedMessage(access.reason, access.ask));
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
    // Within the workspace's history budget (a distributed app: once a minute), waiting its turn if need be.
    const message = deps.threads
      ? await deps.threads.message(item.channel, item.ts)
      : await readMessage(client, item.channel, item.ts);
    if (!message) return await tell(CANNOT_READ);
    if (isForeignAuthor(message, item.homeTeam)) {
      const prompt = reviewMessagePrompt(item.channel, item.ts);
      return await tell(prompt.text, prompt.blocks);
    }
    const source = jobFromMessage(message);
    const length = Array.from(source.instruction).length;
    if (length > MAX_PROMPT_CHARS)
      return await tell(
        tooLongMessage(
          length,
          'That message',
          'Use *Send to docs agent* on it (its ⋯ menu) to send an edited version, or write the instruction with `/docs-agent`.',
        ),
      );
    const existing = await deps.jobs.jobOfThread(item.channel, source.threadTs);
    if (existing) return await tell(alreadyJobThreadText(existing.jobId));
    const result = await deps.jobs.start({
      teamId: item.team ?? null,
      channelId: item.channel,
      threadTs: source.threadTs,
      requesterId: item.user,
      prompt: labelledMessagePrompt(source.instruction, message.user ?? 'unknown', item.user),
      origin: 'reaction',
      sourceTs: item.ts,
    });
    started = result.ok;
    if (started) await deps.jobs.confirmOnce(key).catch(() => undefined);
    const notice = startFailureNotice(result);
    if (notice) await tell(notice);
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
