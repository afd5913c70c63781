import { type HealthCommand, parseHealthCommand } from '../insights/health/health-reports.js';
import { type PageViewsCommand, parsePageViewsCommand } from '../insights/ranges/grammar.js';
import { isBlank } from '../jobs/conversation-service.js';
import { parseDocsAgentCommand } from './command-text.js';

/**
 * What a message in an assistant thread asks for: the words of the slash commands (`health …` as
 * `/docs-health …`, `views …` as `/docs-views …`, `list`, `status <id>`, `help`), else an instruction
 * for the agent (a new job, or a follow-up in a job's thread).
 */
export type AssistantWords =
  | { kind: 'help' }
  | { kind: 'list' }
  | { kind: 'status'; jobId: string }
  | { kind: 'status_usage' }
  | { kind: 'health'; command: HealthCommand }
  | { kind: 'views'; command: PageViewsCommand }
  | { kind: 'instruction' };

/** Input longer than this is an instruction (or too long for one), never words: nothing to tokenise. */
const WORDS_MAX = 200;

/** After `health`/`views`, more words than a report request has (`30d top 10 /api csv`): a sentence. */
const SENTENCE_WORDS = 4;

/** `text` is plain text (mentions and entities already resolved). Pure; linear in the input. */
export function parseAssistantWords(text: string): AssistantWords {
  const trimmed = text.trim();
  if (isBlank(trimmed)) return { kind: 'help' };
  if (trimmed.length > WORDS_MAX) return { kind: 'instruction' };
  const space = trimmed.search(/\s/);
  const first = (space === -1 ? trimmed : trimmed.slice(0, space)).toLowerCase();
  const rest = space === -1 ? '' : trimmed.slice(space + 1);
  if (first === 'health' || first === 'views') {
    const command = first === 'health' ? parseHealthCommand(rest) : parsePageViewsCommand(rest);
    // "health of the quickstart page needs examples" is a sentence for the agent, not a bad range.
    if (command.kind === 'invalid' && rest.split(/\s+/).length > SENTENCE_WORDS)
      return { kind: 'instruction' };
    return first === 'health'
      ? { kind: 'health', command: command as HealthCommand }
      : { kind: 'views', command: command as PageViewsCommand };
  }
  if (first === 'help' || first === 'list' || first === 'status') {
    // The slash command's own grammar: `list`, `status <id>`, `help`; anything longer is an instruction.
    const parsed = parseDocsAgentCommand(trimmed);
    if (parsed.kind === 'help' || parsed.kind === 'list' || parsed.kind === 'status_usage') return parsed;
    if (parsed.kind === 'status') return parsed;
  }
  if (/^(\?|-h|--help)$/.test(trimmed)) return { kind: 'help' };
  return { kind: 'instruction' };
}
