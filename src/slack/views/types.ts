/** A Block Kit message: blocks plus the plain-text fallback Slack shows in notifications. */
export interface SlackMessage {
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: Block Kit JSON; shapes are checked by the view tests.
  blocks: any[];
}
