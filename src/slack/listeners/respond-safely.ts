import { createHash } from 'node:crypto';
import type { RespondFn } from '@slack/bolt';
import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { Outbox } from '../../delivery/ports.js';
import { LIMITS, truncate } from '../messages/limits.js';
import type { MessageBlock, SlackMessage } from '../messages/types.js';
import { hasNewBlocks, withNewBlocks, withoutNewBlocks } from '../new-blocks.js';

/**
 * Answers via response_url; if Slack refuses the blocks, answers again in plain text (the sections' own
 * text), so a refused answer is never silence. An owed answer goes through the outbox; when the outbox's
 * store is away it is sent directly with a word about the outage. Never throws: a response_url that is used
 * up or expired leaves nothing more to do than log.
 */
export async function respondSafely(
  respond: RespondFn,
  message: SlackMessage | { text: string },
  logger: Logger,
  options: { replaceOriginal?: boolean; owed?: OwedAnswer } = {},
): Promise<void> {
  const base = {
    response_type: 'ephemeral' as const,
    ...(options.replaceOriginal === undefined ? {} : { replace_original: options.replaceOriginal }),
  };
  let answer = message;
  if (options.owed) {
    // A report someone waits for: recorded first, then sent, and retried if Slack did not take it.
    const { outbox, url } = options.owed;
    const payload = { ...base, ...message };
    try {
      await outbox.deliver({
        key: `respond:${digest(url)}:${digest(JSON.stringify(payload))}`,
        target: { kind: 'respond', url },
        payload,
        priority: 'reply',
        keepMs: RESPONSE_URL_LIFE_MS,
      });
      return;
    } catch (error) {
      // The store that records what is owed is away (Redis down): nobody can owe this answer, so it is
      // sent now, once, saying so. Silence would be worse than the rare copy a record that landed anyway
      // would add.
      logger.warn({ error: describeError(error) }, 'could not owe an answer; answering directly');
      answer = withStoreAwayNote(message);
    }
  }
  try {
    // Stand-ins (a table's rows as a list) go only where the new blocks do not.
    await respond(
      'blocks' in answer
        ? { ...base, ...answer, blocks: withNewBlocks(answer.blocks) }
        : { ...base, ...answer },
    );
    return;
  } catch (error) {
    logger.warn({ error: describeError(error) }, 'could not answer via response_url');
    if (!('blocks' in answer) || answer.blocks.length === 0 || !refusedAsMessage(error)) return;
  }
  if (hasNewBlocks(answer.blocks)) {
    // A workspace without charts: the same answer without them before falling back to plain text.
    try {
      await respond({ ...base, ...answer, blocks: withoutNewBlocks(answer.blocks) });
      return;
    } catch (error) {
      logger.warn({ error: describeError(error) }, 'could not answer via response_url without charts');
      if (!refusedAsMessage(error)) return;
    }
  }
  try {
    await respond({ ...base, text: plainTextOf(answer) });
  } catch (error) {
    logger.warn({ error: describeError(error) }, 'could not answer via response_url in plain text either');
  }
}

/** Said with an answer sent directly because the outbox's store is away. */
export const STORE_AWAY_NOTE =
  ':warning: My storage is unreachable right now, so this answer was sent directly, once. If something looks missing or stale, try again in a minute.';

/** `message` with STORE_AWAY_NOTE: in its text, and as a last context block (replacing the 50th if full). */
export function withStoreAwayNote(message: SlackMessage | { text: string }): SlackMessage | { text: string } {
  const room = LIMITS.fallbackText - STORE_AWAY_NOTE.length - 2;
  const text = `${truncate(message.text, room)}\n\n${STORE_AWAY_NOTE}`;
  if (!('blocks' in message) || message.blocks.length === 0) return { ...message, text };
  const note: MessageBlock = { type: 'context', elements: [{ type: 'mrkdwn', text: STORE_AWAY_NOTE }] };
  return { ...message, text, blocks: [...message.blocks.slice(0, LIMITS.blocks - 1), note] };
}

/** Where an answer can be owed: the outbox, and the request's response_url (absent in some payloads). */
export interface OwedAnswer {
  outbox: Outbox;
  url: string;
}

/** An owed answer when the request has a response_url and the app an outbox; else a direct answer. */
export function owedVia(outbox: Outbox | undefined, url: unknown): OwedAnswer | undefined {
  return outbox && typeof url === 'string' && url.startsWith('http') ? { outbox, url } : undefined;
}

/** A response_url works for 30 minutes: the record of an answer outlives it. */
const RESPONSE_URL_LIFE_MS = 60 * 60 * 1000;

const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);

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
