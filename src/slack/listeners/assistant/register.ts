import { type App, Assistant, type AssistantConfig, type Context } from '@slack/bolt';
import type { AssistantSurface } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';
import { assistantContextChanged, assistantThreadStarted, threadOfEvent } from './thread-events.js';
import { type AssistantMessageDeps, assistantUserMessage } from './user-message.js';

/**
 * Slack's AI app container through Bolt's `Assistant`: it routes `assistant_thread_started`,
 * `assistant_thread_context_changed` and messages in DM threads here (and nowhere else). The thread
 * context lives in the state store (both modes), not in Bolt's default store (message metadata).
 * Registered once; each request reaches its own deps' surface, and a request whose deps have no assistant
 * passes on to the other listeners (as if none were registered).
 */
export function registerAssistant(app: App, deps: RequestDeps<AssistantMessageDeps>): void {
  const surfaceOf = (context: Context): AssistantSurface | undefined => deps.of(context)?.assistant;
  app.assistant(
    new RequestAssistant(deps, {
      threadContextStore: {
        async get({ payload, context }) {
          const thread = threadOfEvent(payload);
          const surface = surfaceOf(context);
          const stored =
            thread && surface ? await surface.threads.get(thread.channelId, thread.threadTs) : undefined;
          return stored?.contextChannelId ? { channel_id: stored.contextChannelId } : {};
        },
        async save({ payload, context }) {
          const thread = threadOfEvent(payload);
          if (thread) await surfaceOf(context)?.threads.save(thread);
        },
      },
      threadStarted: deps.each(assistantThreadStarted),
      threadContextChanged: deps.each(assistantContextChanged),
      userMessage: deps.each(assistantUserMessage) as never,
    }),
  );
}

/** Bolt's Assistant, taking a request only when that request's deps have the assistant surface. */
class RequestAssistant extends Assistant {
  constructor(
    private readonly deps: RequestDeps<unknown>,
    config: AssistantConfig,
  ) {
    super(config);
  }

  override getMiddleware(): ReturnType<Assistant['getMiddleware']> {
    const assistant = super.getMiddleware();
    return async (args) => (this.deps.of(args.context) ? assistant(args) : args.next());
  }
}
