import type { KnownBlock } from '@slack/types';

/** A Block Kit message: typed blocks (a wrong block is a compile error) plus the notification text. */
export interface SlackMessage {
  text: string;
  blocks: KnownBlock[];
}
