/** Slack Block Kit limits the views must respect (https://api.slack.com/reference/block-kit). */
export const LIMITS = {
  blocks: 50,
  sectionText: 3000,
  headerText: 150,
  fieldText: 2000,
  fields: 10,
  contextElements: 10,
  buttonText: 75,
  buttonUrl: 3000,
  buttonValue: 2000,
  /** Top-level `text`: Slack truncates beyond 40,000; keep notifications short. */
  fallbackText: 3000,
  /** Slack's hard limit on top-level `text`, for texts that must carry a long link whole. */
  messageText: 40_000,
  richTextQuote: 3500,
} as const;

/** Cuts to at most `max` characters (code points are not split), marking the cut with an ellipsis. */
export function truncate(text: string, max: number): string {
  // UTF-16 length never undercounts code points: short text needs no split into characters (which cost
  // more than the rest of rendering a report).
  if (text.length <= max) return text;
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  return `${chars.slice(0, Math.max(0, max - 1)).join('')}…`;
}

/** One line for notifications and previews. */
export function oneLine(text: string, max: number): string {
  return truncate(text.replace(/\s+/g, ' ').trim(), max);
}

/**
 * `<url|label>` in at most `max` characters: only the label is shortened, never the markup. A URL too long
 * to fit leaves the label alone (as text), so a cut can never show half a link.
 */
export function fitLink(url: string, label: string, max: number): string {
  const room = max - url.length - 3;
  if (room < 1) return truncate(label, max);
  return `<${url}|${truncate(label, room)}>`;
}

/** Slack refuses (`msg_blocks_too_long`) a message whose blocks hold more text than this in total. */
export const TOTAL_BLOCK_TEXT = 11_500;

/** The text Slack counts toward that limit: every `text` string in the blocks. */
export function blockTextLength(blocks: unknown): number {
  let total = 0;
  const walk = (value: unknown, key: string | undefined): void => {
    if (typeof value === 'string') total += key === 'text' ? value.length : 0;
    else if (Array.isArray(value)) for (const item of value) walk(item, undefined);
    else if (typeof value === 'object' && value !== null)
      for (const [k, v] of Object.entries(value)) walk(v, k);
  };
  walk(blocks, undefined);
  return total;
}
