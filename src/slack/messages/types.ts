import type { KnownBlock } from '@slack/types';
import type { DataVisualizationBlock } from './charts.js';

/** A block of a message: Block Kit's typed blocks, and the 2026 chart block `@slack/types` lacks. */
export type MessageBlock = KnownBlock | DataVisualizationBlock;

/** A Block Kit message: typed blocks (a wrong block is a compile error) plus the notification text. */
export interface SlackMessage {
  text: string;
  blocks: MessageBlock[];
}
