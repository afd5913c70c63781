import { type App, Assistant } from '@slack/bolt';
import type { AssistantSurface } from '../deps.js';
import { assistantContextChanged, assistantThreadStarted, threadOfEvent } from './thread-events.js';
import { type AssistantMessageDeps, assistantUserMessage } from './user-message.js';

/**
 * Slack's AI app container through Bolt's `Assistant`: it routes `assistant_thread_started`,
 * `assistant_thread_context_changed` and messages in DM threads here (and nowhere else). The thread
 * context lives in the state store (both modes), not in Bolt's default store (message metadata).
 */
export function registerAssistant(app: App, deps: AssistantMessageDeps): void {
  const surface: AssistantSurface = deps.assistant;
  app.assistant(
    new Assistant({
      threadContextStore: {
        async get({ payload }) {
          const thread = threadOfEvent(payload);
          const stored = thread ? await surface.threads.get(thread.channelId, thread.threadTs) : undefined;
          return stored?.contextChannelId ? { channel_id: stored.contextChannelId } : {};
        },
        async save({ payload }) {
          const thread = threadOfEvent(payload);
          if (thread) await surface.threads.save(thread);
        },
      },
      threadStarted: assistantThreadStarted(deps),
      threadContextChanged: assistantContextChanged(deps),
      userMessage: assistantUserMessage(deps),
    }),
  );
}
