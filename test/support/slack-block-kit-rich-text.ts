import type { RichTextBlockElement, RichTextElement } from '@slack/types';
import { isObject } from './slack-block-kit-elements.js';

type Json = Record<string, unknown>;

/** Rich text as @slack/types types it: the parts of a `rich_text` block, and the runs inside each. */
const RICH_TEXT_BLOCKS = [
  'rich_text_section',
  'rich_text_list',
  'rich_text_quote',
  'rich_text_preformatted',
] as const satisfies readonly RichTextBlockElement['type'][];
const RICH_TEXT_ELEMENTS = [
  'text',
  'link',
  'emoji',
  'user',
  'channel',
  'usergroup',
  'broadcast',
  'date',
] as const satisfies readonly RichTextElement['type'][];

/** `rich_text` blocks: sections, lists, quotes and preformatted runs of text, links, emoji and mentions. */
export function checkRichText(block: Json, at: string, errors: string[]): void {
  const parts = block.elements;
  if (!Array.isArray(parts) || parts.length === 0) {
    errors.push(`must provide an array [json-pointer:${at}/elements]`);
    return;
  }
  for (const [i, part] of parts.entries()) {
    const p = `${at}/elements/${i}`;
    if (!isObject(part) || !(RICH_TEXT_BLOCKS as readonly unknown[]).includes(part.type)) {
      errors.push(`must be a valid enum value [json-pointer:${p}/type]`);
      continue;
    }
    if (!Array.isArray(part.elements)) {
      errors.push(`must provide an array [json-pointer:${p}/elements]`);
      continue;
    }
    if (part.type === 'rich_text_list') {
      if (part.style !== 'bullet' && part.style !== 'ordered')
        errors.push(`must be a valid enum value [json-pointer:${p}/style]`);
      checkRichText({ elements: part.elements }, p, errors);
      continue;
    }
    for (const [j, run] of part.elements.entries()) richTextRun(run, `${p}/elements/${j}`, errors);
  }
}

function richTextRun(run: unknown, at: string, errors: string[]): void {
  if (!isObject(run) || !(RICH_TEXT_ELEMENTS as readonly unknown[]).includes(run.type)) {
    errors.push(`must be a valid enum value [json-pointer:${at}/type]`);
    return;
  }
  const need = (field: string) => {
    if (typeof run[field] !== 'string' || run[field] === '')
      errors.push(`must provide a string [json-pointer:${at}/${field}]`);
  };
  if (run.type === 'text') need('text');
  // No length is documented for a link's url (the bot uses one for PR links too long for a button).
  if (run.type === 'link') need('url');
  if (run.type === 'emoji') need('name');
  if (run.type === 'user') need('user_id');
  if (run.type === 'channel') need('channel_id');
  if (run.type === 'usergroup') need('usergroup_id');
  if (run.type === 'broadcast') need('range');
}
