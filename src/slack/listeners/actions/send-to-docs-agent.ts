import type { App } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import { describeError } from '../../../common/errors.js';
import { accessDeniedMessage } from '../../command-text.js';
import { EmptySourceMessageError, jobFromMessage, type SourceMessage } from '../../message-source.js';
import { jobModalView } from '../../messages/job-modal.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';
import { contextSummary, earlierMessages, type ThreadContext, type ThreadReader } from './thread-reads.js';

export const SEND_TO_DOCS_AGENT_CALLBACK_ID = 'docs_agent_from_message';

export type SendToDocsAgentDeps = Pick<SlackDeps, 'access' | 'logger' | 'threads'>;

/** The parts of a `message_action` payload read here. */
export interface MessageShortcutArgs {
  ack: () => Promise<void>;
  shortcut: {
    trigger_id: string;
    user: { id: string };
    channel: { id: string };
    /** The workspace the shortcut was used in: only its people's earlier messages are offered. */
    team?: { id: string } | null;
    message: SourceMessage;
  };
  respond: (message: { text: string; response_type?: 'ephemeral' }) => Promise<unknown>;
  client: ThreadReader & { views: { open(args: { trigger_id: string; view: ModalView }): Promise<unknown> } };
}

export function registerSendToDocsAgentShortcut(app: App, deps: RequestDeps<SendToDocsAgentDeps>): void {
  app.shortcut(
    { type: 'message_action', callback_id: SEND_TO_DOCS_AGENT_CALLBACK_ID },
    deps.each(sendToDocsAgentShortcut) as never,
  );
}

/**
 * "Send to docs agent" on a message: opens the job modal prefilled with the message as plain text, the
 * thread's earlier messages offered as context. The trigger_id lives 3 s, so the modal opens before
 * anything slow; the job starts on submission (`jobModalSubmission`).
 */
export function sendToDocsAgentShortcut(deps: SendToDocsAgentDeps) {
  return async ({ ack, shortcut, respond, client }: MessageShortcutArgs): Promise<void> => {
    await ack();
    const channelId = shortcut.channel.id;
    const access = deps.access.check(shortcut.user.id, channelId);
    if (!access.ok) {
      await tell(respond, accessDeniedMessage(access.reason, access.ask), deps);
      return;
    }
    let source: ReturnType<typeof jobFromMessage>;
    try {
      source = jobFromMessage(shortcut.message);
    } catch (error) {
      if (!(error instanceof EmptySourceMessageError)) throw error;
      await tell(
        respond,
        `${error.message} Pick a message with text, or use \`/docs-agent &lt;instruction&gt;\`.`,
        deps,
      );
      return;
    }
    const view = await jobFormFor(
      client,
      channelId,
      shortcut.message,
      source,
      deps.threads,
      shortcut.team?.id,
    );
    try {
      await client.views.open({ trigger_id: shortcut.trigger_id, view });
    } catch (error) {
      deps.logger.warn({ channelId, error: describeError(error) }, 'could not open the job modal');
      await tell(
        respond,
        "I couldn't open the docs agent form (Slack took too long or refused it). Try the shortcut again.",
        deps,
      );
    }
  };
}

/**
 * The job form for a message: prefilled with it as plain text (from the payload, no read), the thread's
 * earlier messages offered when they can be read now. When they cannot (the workspace's history budget is
 * spent this minute), the form still opens, prefilled, and says so.
 */
export async function jobFormFor(
  client: ThreadReader,
  channelId: string,
  message: SourceMessage,
  source = jobFromMessage(message),
  threads?: ThreadContext,
  homeTeam?: string,
): Promise<ModalView> {
  const read = threads
    ? await threads.now(channelId, source.threadTs, message.ts, homeTeam)
    : {
        messages: await earlierMessages(client, channelId, source.threadTs, message.ts, homeTeam),
        firstPage: false,
      };
  return jobModalView({
    refs: { origin: 'message_shortcut', channelId, threadTs: source.threadTs, messageTs: message.ts },
    instruction: source.instruction,
    earlierMessages: read?.messages ?? [],
    context: contextSummary(read?.messages ?? [], read?.firstPage),
    ...(read === undefined ? { threadUnread: threads?.appTier ?? 'internal' } : {}),
  });
}

async function tell(
  respond: MessageShortcutArgs['respond'],
  text: string,
  deps: Pick<SlackDeps, 'logger'>,
): Promise<void> {
  try {
    await respond({ response_type: 'ephemeral', text });
  } catch (error) {
    deps.logger.warn({ error: describeError(error) }, 'could not answer the shortcut');
  }
}
