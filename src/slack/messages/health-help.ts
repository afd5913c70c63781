import { placeholder } from './help.js';

/** `/docs-health help` (and `health help` in the assistant): the report, weekly posts and alerts, once each. */
export function docsHealthHelp(command: string): string {
  const schedule = `${placeholder('weekday')} ${placeholder('HH:MM')} [IANA time zone]`;
  return [
    `*${command} [range] [top N]*: where readers get stuck, from the docs analytics.`,
    '• Searches that found nothing, pages readers flag with 👎 (with their latest comments), and questions the assistant could not answer.',
    '• Range: `7d` (default: the last 7 full days), `30d`, `90d` or any `Nd` up to `366d`, `yesterday`, `last-week`, `this-month`, `last-month` or `YYYY-MM-DD..YYYY-MM-DD`.',
    '• `top N`: rows per section, 1–25 (default 5).',
    '• *Fix* beside a row opens a job form naming the evidence; *Post to channel* shares the report.',
    `• \`${command} schedule ${schedule}\`: a weekly docs-health post in this channel (last 7 full days, top 5), e.g. \`${command} schedule monday 09:00 Europe/Berlin\`. \`${command} schedules\` lists it, \`${command} unschedule\` stops it.`,
    `• \`${command} alerts on [sensitivity low|normal|high]\`: an alert here when a reader signal jumps (a search that finds nothing, a page's 👎, an unanswered question, a top page's views collapsing), with a *Fix* button. \`${command} alerts off\` stops them, \`${command} alerts\` shows the state.`,
    `Example: \`${command} 30d top 10\``,
  ].join('\n');
}
