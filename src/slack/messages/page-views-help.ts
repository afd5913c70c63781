import { DEFAULT_TOP, MAX_TOP } from '../../insights/ranges/grammar.js';
import { placeholder } from './help.js';
import type { SlackMessage } from './types.js';

/** `/docs-views help`: the grammar, with examples. */
export function pageViewsHelpMessage(command = '/docs-views'): SlackMessage {
  const reports = [
    `*${command}* reports page views of the docs (human and AI traffic).`,
    '',
    `*Reports* \`${command} [range] [top N] [path-prefix] [csv]\`, in any order:`,
    '• *range*: `7d`, `30d`, `90d` or any `Nd` up to `366d`, `yesterday`, `last-week` (Monday–Sunday), `this-month` (to date), `last-month`, or `YYYY-MM-DD..YYYY-MM-DD` (both days included). Default: the last 7 full days. Days are UTC.',
    `• *top N*: how many pages to list, 1–${MAX_TOP} (default ${DEFAULT_TOP}).`,
    '• *path-prefix*: only pages whose path starts with it, e.g. `/api`.',
    '• *csv*: also upload a CSV of every page in the range to this channel.',
    '',
    'The report is only visible to you; use *Post to channel* to share it.',
  ].join('\n');
  const schedules = [
    '*Weekly posts* (in the channel that should get them):',
    `• \`${command} schedule ${placeholder('weekday')} ${placeholder('HH:MM')} [IANA time zone]\`: post the last 7 full days every week (time zone default UTC).`,
    `• \`${command} schedules\`: list the weekly posts.`,
    `• \`${command} unschedule\`: stop this channel's weekly post.`,
    '',
    '*Examples*',
    `• \`${command}\``,
    `• \`${command} 30d top 20\``,
    `• \`${command} last-month /api csv\``,
    `• \`${command} 2025-03-01..2025-03-31 top 5 /guides\``,
    `• \`${command} schedule monday 09:00 Europe/Berlin\``,
  ].join('\n');
  return {
    text: `${command} help: ${command} [range] [top N] [path-prefix] [csv], or ${command} schedule ${placeholder('weekday')} ${placeholder('HH:MM')} [time zone]`,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: reports } },
      { type: 'section', text: { type: 'mrkdwn', text: schedules } },
    ],
  };
}
