import type { RespondFn } from '@slack/bolt';
import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import { LIMITS, truncate } from '../messages/limits.js';
import type { SlackMessage } from '../messages/types.js';

/**
 * Answers via response_url; if Slack refuses the blocks, answers again in plain text (the sections' own
 * text), so a refused answer is never silence. Never throws: a response_url that is used up or expired
 * leaves nothing more to do than log.
 */
export async function respondSafely(
  respond: RespondFn,
  message: SlackMessage | { text: string },
  logger: Logger,
  options: { replaceOriginal?: boolean } = {},
): Promise<void> {
  const base = {
    response_type: 'ephemeral' as const,
    ...(options.replaceOriginal === undefined ? {} : { replace_original: options.replaceOriginal }),
  };
  try {
    await respond({ ...base, ...message });
    return;
  } catch (error) {
    logger.warn({ error: describeError(error) }, 'could not answer via response_url');
    if (!('blocks' in message) || message.blocks.length === 0 || !refusedAsMessage(error)) return;
  }
  try {
    await respond({ ...base, text: plainTextOf(message) });
  } catch (error) {
    logger.warn({ error: describeError(error) }, 'could not answer via response_url in plain text either');
  }
}

/**
 * An HTTP 400 from response_url is Slack refusing the payload. A 404 (used or expired) would repeat, and
 * after no answer at all the first try may have landed: neither is sent again.
 */
function refusedAsMessage(error: unknown): boolean {
  // Bolt's RespondError carries the HTTP status as `statusCode`.
  return (error as { statusCode?: unknown } | null)?.statusCode === 400;
}

/** What the blocks say, as one mrkdwn text: sections and context, in order, within Slack's limits. */
export function plainTextOf(message: SlackMessage): string {
  const parts: string[] = [];
  for (const block of message.blocks) {
    if (block.type === 'section') {
      if (block.text) parts.push(block.text.text);
      for (const field of block.fields ?? []) parts.push(field.text);
    } else if (block.type === 'header') parts.push(`*${block.text.text}*`);
    else if (block.type === 'context')
      for (const element of block.elements) if ('text' in element) parts.push(element.text);
  }
  const text = parts.join('\n');
  return truncate(text.length > 0 ? text : message.text, LIMITS.fallbackText);
}
