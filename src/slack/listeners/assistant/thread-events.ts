import { describeError } from '../../../common/errors.js';
import type { AssistantThread } from '../../../jobs/assistant-thread.js';
import { ASSISTANT_PROMPTS, ASSISTANT_PROMPTS_TITLE } from '../../messages/assistant-replies.js';
import type { AssistantSurface, SlackDeps } from '../deps.js';

export type AssistantThreadDeps = Pick<SlackDeps, 'logger' | 'afterAck'> & { assistant: AssistantSurface };

/** The part of `assistant_thread_started` / `assistant_thread_context_changed` the bot reads. */
interface RawThreadEvent {
  assistant_thread?: {
    user_id?: unknown;
    channel_id?: unknown;
    thread_ts?: unknown;
    context?: { channel_id?: unknown } | null;
  };
}

const CHANNEL_ID = /^[CGD][A-Z0-9]{2,30}$/;
const USER_ID = /^[UW][A-Z0-9]{2,30}$/;
const TS = /^\d{1,12}\.\d{1,9}$/;

/** The thread an event names, with ids checked (event fields are text from outside); undefined if unusable. */
export function threadOfEvent(event: unknown): AssistantThread | undefined {
  const t = (event as RawThreadEvent).assistant_thread;
  if (!t) return undefined;
  const { user_id: userId, channel_id: channelId, thread_ts: threadTs } = t;
  if (typeof channelId !== 'string' || !CHANNEL_ID.test(channelId)) return undefined;
  if (typeof threadTs !== 'string' || !TS.test(threadTs)) return undefined;
  if (typeof userId !== 'string' || !USER_ID.test(userId)) return undefined;
  const context = t.context?.channel_id;
  return {
    channelId,
    threadTs,
    userId,
    ...(typeof context === 'string' && CHANNEL_ID.test(context) ? { contextChannelId: context } : {}),
  };
}

/**
 * `assistant_thread_started`: remembers the thread and the channel the user is looking at, and offers the
 * suggested prompts (each answered at once: see ASSISTANT_PROMPTS).
 */
export function assistantThreadStarted(deps: AssistantThreadDeps) {
  return async ({ event }: { event: unknown }): Promise<void> => {
    const thread = threadOfEvent(event);
    if (!thread) return;
    deps.afterAck(async () => {
      await saveThread(deps, thread);
      await deps.assistant.calls
        .suggestPrompts(thread.channelId, thread.threadTs, ASSISTANT_PROMPTS_TITLE, [...ASSISTANT_PROMPTS])
        .catch((error: unknown) =>
          deps.logger.warn(
            { channelId: thread.channelId, error: describeError(error) },
            'could not set suggested prompts',
          ),
        );
    });
  };
}

/**
 * `assistant_thread_context_changed`: the user opened another channel beside the container; jobs and
 * reports asked for in this thread from now on act on that channel's docs project.
 */
export function assistantContextChanged(deps: AssistantThreadDeps) {
  return async ({ event }: { event: unknown }): Promise<void> => {
    const thread = threadOfEvent(event);
    if (!thread) return;
    deps.afterAck(() => saveThread(deps, thread));
  };
}

/** A lost context is logged: the thread falls back to the DM's project (the default) until the next event. */
async function saveThread(deps: AssistantThreadDeps, thread: AssistantThread): Promise<void> {
  try {
    await deps.assistant.threads.save(thread);
  } catch (error) {
    deps.logger.warn(
      { channelId: thread.channelId, error: describeError(error) },
      'could not save an assistant thread; its reports and jobs use the default docs project',
    );
  }
}
