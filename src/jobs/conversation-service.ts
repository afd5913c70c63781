import type { InboundMessage } from './domain/inbound-message.js';
import {
  type ConversationOutcome,
  type ConversationServiceDeps,
  HandleInboundMessage,
} from './use-cases/inbound-message.js';

// The facade's callers (Slack listeners, notifier, user names) import these from here.
export type { InboundMessage } from './domain/inbound-message.js';
export { followUpPrompt, isAside, isBlank, mentionsUser, stripMention } from './domain/message-text.js';
export type {
  ConversationNotifier,
  MessageRef,
  MessageText,
  PrivateNotice,
  ThreadMessage,
} from './ports.js';
export type {
  ConversationJobs,
  ConversationOutcome,
  ConversationServiceDeps,
  IgnoredBecause,
} from './use-cases/inbound-message.js';

/**
 * Conversations with a job: @mentions and DMs start jobs, replies in a job's thread become follow-ups.
 * The inbound-message use case behind the object the Slack edge holds.
 */
export class ConversationService {
  private readonly inbound: HandleInboundMessage;

  constructor(deps: ConversationServiceDeps) {
    this.inbound = new HandleInboundMessage(deps);
  }

  /** Acts on one message at most once. */
  handle(message: InboundMessage): Promise<ConversationOutcome> {
    return this.inbound.run(message);
  }
}
