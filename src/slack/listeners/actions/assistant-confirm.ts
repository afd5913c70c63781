import type { App, RespondFn } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import { describeError } from '../../../common/errors.js';
import type { AssistantThread, PendingInstruction } from '../../../jobs/assistant-thread.js';
import type { InboundMessage } from '../../../jobs/conversation-service.js';
import { slackToPlainText } from '../../markup.js';
import {
  CONFIRM_ACTIONS,
  CONFIRM_CANCEL_ACTION,
  CONFIRM_EDIT_ACTION,
  confirmationDecided,
  parsePendingId,
} from '../../messages/assistant-confirm.js';
import { jobModalView } from '../../messages/job-modal.js';
import { STATE_UNAVAILABLE_TEXT } from '../../messages/job-replies.js';
import type { SlackMessage } from '../../messages/types.js';
import { type AssistantMessageDeps, instruct, mayUseContext } from '../assistant/user-message.js';
import type { RequestDeps } from '../request-deps.js';
import { respondSafely } from '../respond-safely.js';

export type AssistantConfirmDeps = AssistantMessageDeps;

/** The parts of the `block_actions` payload read here. */
export interface AssistantConfirmArgs {
  ack: () => Promise<void>;
  action: { action_id: string; value?: string };
  body: {
    trigger_id?: string;
    user: { id: string };
    channel?: { id?: string };
    container?: { channel_id?: string; message_ts?: string };
    message?: { ts?: string };
  };
  respond: RespondFn;
  client: { views: { open(args: { trigger_id: string; view: ModalView }): Promise<unknown> } };
}

export function registerAssistantConfirm(app: App, deps: RequestDeps<AssistantConfirmDeps>): void {
  app.action(CONFIRM_ACTIONS, deps.each(assistantConfirm) as never);
}

/**
 * The confirmation card's buttons. [Start job] starts the kept instruction through the conversation
 * service, as if it had just been sent (access, the channel beside the container, budgets and length are
 * checked again now; the message's identity makes a second click a duplicate: one job). [Edit] opens the
 * job form prefilled; [Cancel] forgets it. Only the person who sent it decides.
 */
export function assistantConfirm(deps: AssistantConfirmDeps) {
  return async ({ ack, action, body, respond, client }: AssistantConfirmArgs): Promise<void> => {
    await ack();
    const tell = (text: string) => respondSafely(respond, { text }, deps.logger, { replaceOriginal: false });
    const id = parsePendingId(action.value);
    const channelId = body.channel?.id ?? body.container?.channel_id;
    const cardTs = body.message?.ts ?? body.container?.message_ts;
    if (!id || !channelId || !cardTs) {
      await tell(':warning: I could not tell which instruction this button is about.');
      return;
    }
    const userId = body.user.id;
    let pending: PendingInstruction | undefined;
    try {
      pending = await deps.assistant.threads.pending(id);
    } catch (error) {
      deps.logger.warn({ error: describeError(error) }, 'could not read a pending instruction');
      await tell(STATE_UNAVAILABLE_TEXT);
      return;
    }
    // Gone: already started or cancelled (the card says so), or kept longer than a day.
    if (!pending || pending.channelId !== channelId) {
      await tell(confirmationDecided('expired', userId).text);
      return;
    }
    if (pending.userId !== userId) {
      await tell(`Only <@${pending.userId}>, who sent this instruction, can start, edit or cancel it.`);
      return;
    }
    const replace = (message: SlackMessage) => replaceCard(deps, respond, channelId, cardTs, message);
    try {
      if (action.action_id === CONFIRM_CANCEL_ACTION) {
        await deps.assistant.threads.dropPending(id);
        await replace(confirmationDecided('cancelled', userId));
      } else if (action.action_id === CONFIRM_EDIT_ACTION) {
        await openForm(deps, client, body.trigger_id, pending, tell);
      } else {
        await start(deps, pending, replace);
      }
    } catch (error) {
      deps.logger.error({ channelId, error: describeError(error) }, 'confirmation button failed');
      await tell(STATE_UNAVAILABLE_TEXT);
    }
  };
}

async function start(
  deps: AssistantConfirmDeps,
  pending: PendingInstruction,
  replace: (message: SlackMessage) => Promise<void>,
): Promise<void> {
  const { channelId, threadTs, userId } = pending;
  const thread: AssistantThread = (await deps.assistant.threads.get(channelId, threadTs)) ?? {
    channelId,
    threadTs,
    userId,
  };
  const message: InboundMessage & { userId: string; threadTs: string } = {
    kind: 'message',
    teamId: pending.teamId,
    channelId,
    channelType: 'im',
    userId,
    botId: undefined,
    subtype: undefined,
    ts: pending.messageTs,
    threadTs,
    text: pending.text,
    botUserId: pending.botUserId,
  };
  // The channel open beside the container may have changed, or its access: checked on the click.
  if (thread.contextChannelId && !(await mayUseContext(deps, message, userId, thread.contextChannelId)))
    return;
  const existing = await deps.jobs.jobOfThread(channelId, threadTs);
  if (existing) {
    await deps.assistant.threads.dropPending(pending.id);
    await replace(confirmationDecided('has_job', userId));
    return;
  }
  const outcome = await instruct(deps, message, thread, slackToPlainText(pending.text));
  // Another click on its way: the first one decides the card.
  if (outcome.kind === 'duplicate') return;
  await deps.assistant.threads.dropPending(pending.id);
  const started = outcome.kind === 'started' && outcome.result.ok;
  await replace(confirmationDecided(started ? 'started' : 'not_started', userId));
}

async function openForm(
  deps: AssistantConfirmDeps,
  client: AssistantConfirmArgs['client'],
  triggerId: string | undefined,
  pending: PendingInstruction,
  tell: (text: string) => Promise<void>,
): Promise<void> {
  const thread = await deps.assistant.threads.get(pending.channelId, pending.threadTs);
  const view = jobModalView({
    refs: {
      origin: 'message_shortcut',
      channelId: pending.channelId,
      threadTs: pending.threadTs,
      messageTs: pending.messageTs,
      ...(thread?.contextChannelId ? { projectChannelId: thread.contextChannelId } : {}),
    },
    instruction: slackToPlainText(pending.text),
  });
  try {
    if (!triggerId) throw new Error('no trigger_id');
    await client.views.open({ trigger_id: triggerId, view });
  } catch (error) {
    deps.logger.warn({ error: describeError(error) }, 'could not open the job form from a confirmation');
    await tell("I couldn't open the job form (Slack took too long or refused it). Press *Edit* again.");
  }
}

/** Through the outbox when the surface has it (the latest state wins), else via the response URL. */
async function replaceCard(
  deps: AssistantConfirmDeps,
  respond: RespondFn,
  channelId: string,
  ts: string,
  message: SlackMessage,
): Promise<void> {
  if (deps.assistant.sessions) await deps.assistant.sessions.replace(channelId, ts, message);
  else await respondSafely(respond, message, deps.logger, { replaceOriginal: true });
}
