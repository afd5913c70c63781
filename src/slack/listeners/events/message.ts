import type { App } from '@slack/bolt';
import type { MessageEventArgs } from '../args.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';
import { handleInbound, toInbound } from './inbound.js';

/** Both event types the bot reads; one listener, because Bolt runs every listener's matchers per request. */
const MESSAGE_EVENT_TYPES = /^(?:message|app_mention)$/;

export type MessageEventDeps = Pick<SlackDeps, 'conversations' | 'logger' | 'afterAck'>;

export function registerMessageEvents(app: App, deps: RequestDeps<MessageEventDeps>): void {
  app.event(MESSAGE_EVENT_TYPES, deps.each(messageEvent));
}

/**
 * `message` events (message.channels, .groups, .im) and `app_mention`: replies in job threads become
 * follow-ups; mentions and DMs start jobs (a mention's thread is the job thread). A mention's `message`
 * twin is deduplicated by the service on the message identity. Bolt acknowledges events before this runs;
 * bots, edits and asides are filtered by the service.
 */
export function messageEvent(deps: MessageEventDeps) {
  return async ({ event, body, context }: MessageEventArgs): Promise<void> => {
    const message = toInbound(event.type === 'app_mention' ? 'app_mention' : 'message', event, body, context);
    deps.afterAck(() => handleInbound(deps, message));
  };
}
