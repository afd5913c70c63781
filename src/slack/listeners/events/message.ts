import type { App } from '@slack/bolt';
import type { SlackDeps } from '../deps.js';
import { handleInbound, toInbound } from './inbound.js';

/**
 * `message` events (message.channels, .groups, .im): replies in job threads become follow-ups, DMs start
 * jobs. Bolt acknowledges the event before this runs; bots, edits and asides are filtered by the service.
 */
export function registerMessageEvents(app: App, deps: SlackDeps): void {
  app.event('message', async ({ event, body, context }) => {
    const message = toInbound('message', event, body, context);
    deps.afterAck(() => handleInbound(deps, message));
  });
}
