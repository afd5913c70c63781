import type { App } from '@slack/bolt';
import type { SlackDeps } from '../deps.js';
import { handleInbound, toInbound } from './inbound.js';

/**
 * `app_mention`: starts a job (the mention's thread is the job thread), or is a follow-up inside a job
 * thread. Its `message` twin is deduplicated by the service on the message identity.
 */
export function registerAppMentionEvents(app: App, deps: SlackDeps): void {
  app.event('app_mention', async ({ event, body, context }) => {
    const message = toInbound('app_mention', event, body, context);
    deps.afterAck(() => handleInbound(deps, message));
  });
}
