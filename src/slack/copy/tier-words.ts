import type { SlackAppTier } from '../../common/config.js';

/**
 * How often Slack lets this app read a conversation's messages, in people's words (SLACK_APP_TIER): an
 * internal or Marketplace app about once a second, a distributed app not in the Marketplace about once a
 * minute. Undefined reads as internal, the single-workspace default.
 */
export function historyReadPace(tier: SlackAppTier | undefined): string {
  return tier === 'distributed' ? 'about once a minute' : 'about once a second';
}

/** The "Review and send" button found no free read within its wait: two sentences, first person. */
export function readBudgetSpentText(tier: SlackAppTier | undefined): string {
  const again = tier === 'distributed' ? 'in a minute' : 'in a few seconds';
  return `Slack lets me read messages in this workspace only ${historyReadPace(tier)}, and no read was free just now. Press the button again ${again}, or use *Send to docs agent* on the message (its ⋯ menu).`;
}

/** A form opened without a thread's earlier messages because no read was free. */
export function threadUnreadText(tier: SlackAppTier | undefined): string {
  return `:hourglass: I couldn't read this thread's earlier messages just now (Slack lets me read a thread only ${historyReadPace(tier)}), so they aren't offered as context. Add what the agent needs to know to the instruction.`;
}
