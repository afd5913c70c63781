import type { Evidence } from './evidence.js';

/** Room in the modal's plain_text_input (Slack: `initial_value` ≤ 3000), kept below it. */
export const MAX_INSTRUCTION_CHARS = 2900;
const MAX_QUOTED_CHARS = 600;
const MAX_COMMENT_CHARS = 400;

const clip = (text: string, max: number) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  const chars = Array.from(flat);
  return chars.length <= max ? flat : `${chars.slice(0, max - 1).join('')}…`;
};
const count = (value: number) => String(Math.round(value));
const percent = (ratio: number) => `${(ratio * 100).toFixed(ratio * 100 < 10 ? 1 : 0)}%`;

/**
 * The instruction prefilled for the docs agent: plain text that names the evidence and says it comes from
 * readers' data, at most `MAX_INSTRUCTION_CHARS` (the user edits it before the job starts).
 */
export function instructionFor(evidence: Evidence): string {
  const { from, toExclusive } = evidence.range;
  const source = `From readers' data (docs analytics, ${from} up to ${toExclusive}, exclusive):`;
  let text: string;
  switch (evidence.kind) {
    case 'search': {
      const share = evidence.share === undefined ? '' : `, ${percent(evidence.share)} of all searches`;
      text = [
        source,
        `readers searched for "${clip(evidence.query, MAX_QUOTED_CHARS)}" ${count(evidence.hits)} times${share}, and the search found nothing they clicked (click-through ${percent(evidence.ctr)}).`,
        'Make the docs answer this search: improve the page that should cover it (title, headings, keywords) or add the missing content, and open a pull request.',
      ].join('\n');
      break;
    }
    case 'page': {
      const comments = evidence.comments.map((c) => `- "${clip(c, MAX_COMMENT_CHARS)}"`);
      text = [
        source,
        `the page ${clip(evidence.path, MAX_QUOTED_CHARS)} got ${count(evidence.thumbsDown)} 👎 and ${count(evidence.thumbsUp)} 👍.`,
        ...(comments.length > 0
          ? ['Latest comments from readers:', ...comments]
          : ['Readers left no comments.']),
        'Fix what makes readers flag this page, and open a pull request.',
      ].join('\n');
      break;
    }
    case 'question':
      text = [
        source,
        `readers asked the docs assistant "${clip(evidence.question, MAX_QUOTED_CHARS)}" ${count(evidence.asked)} ${evidence.asked === 1 ? 'time' : 'times'}, and it could not answer from the docs.`,
        'Add or extend the documentation so this question is answered, and open a pull request.',
      ].join('\n');
      break;
  }
  const chars = Array.from(text);
  return chars.length <= MAX_INSTRUCTION_CHARS
    ? text
    : `${chars.slice(0, MAX_INSTRUCTION_CHARS - 1).join('')}…`;
}
