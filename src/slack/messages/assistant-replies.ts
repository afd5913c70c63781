import type { JobRecord } from '../../jobs/domain/job.js';
import type { SuggestedPrompt } from '../assistant-calls.js';
import { escapeMrkdwn } from '../markup.js';
import { mrkdwnLink } from './format.js';
import { MAX_PROMPT_CHARS } from './help.js';
import { escapedPreview, threadLink } from './job-list.js';
import { LIMITS, oneLine, truncate } from './limits.js';
import type { SlackMessage } from './types.js';

export const ASSISTANT_PROMPTS_TITLE = 'Ask docs-agent';

/**
 * The suggested prompts of a new assistant thread. Each message is in the words the bot answers at once
 * (`parseAssistantWords`), so a click never starts a job by accident.
 */
export const ASSISTANT_PROMPTS: readonly SuggestedPrompt[] = [
  { title: 'Docs health, last 7 days', message: 'health 7d' },
  { title: 'Top pages this week', message: 'views 7d top 10' },
  { title: 'My docs agent jobs', message: 'list' },
  { title: 'How do I start a docs job?', message: 'help' },
];

function section(text: string): SlackMessage['blocks'][number] {
  return { type: 'section', text: { type: 'mrkdwn', text: truncate(text, LIMITS.sectionText) } };
}

/** `help` in an assistant thread: the words it answers, and how an instruction becomes a job. Pure. */
export function assistantHelpMessage(): SlackMessage {
  const text = [
    '*Ask me here* (the channel you have open beside me decides the docs project):',
    '• `health [range] [top N]`: where readers get stuck (as `/docs-health`), e.g. `health 30d top 10`.',
    '• `views [range] [top N] [/path]`: top pages, human vs AI traffic (as `/docs-views`), e.g. `views last-week /api`.',
    '• `list`: the docs agent jobs you started. `status &lt;job id&gt;`: one job, fresh from the docs platform.',
    `• *Anything else is an instruction* for the docs agent (up to ${MAX_PROMPT_CHARS.toLocaleString('en-US')} characters), e.g. _Document the new 429 response on the jobs API_. I show it back with *Start job* first, then its progress here, and reply with the pull request. A question (_What's our most-read page?_) is answered, not turned into a job.`,
    '• Later messages in this thread go to that job as follow-ups.',
  ].join('\n');
  return {
    text: 'docs-agent: health, views, list, status &lt;job id&gt;, or an instruction',
    blocks: [section(text)],
  };
}

/** `list` in an assistant thread: the jobs this person started, newest first. Pure. */
export function myJobsMessage(records: readonly JobRecord[]): SlackMessage {
  if (records.length === 0) {
    const text = "You haven't started any docs agent jobs yet. Send me an instruction here to start one.";
    return { text, blocks: [section(text)] };
  }
  const lines = records.map(
    (r) =>
      `• \`${escapeMrkdwn(oneLine(r.jobId, 100))}\` · *${escapeMrkdwn(oneLine(r.status, 40))}* · ${mrkdwnLink(threadLink(r.channelId, r.threadTs), 'thread')}\n  ${escapedPreview(r.prompt, 150)}`,
  );
  return {
    text: `Your ${records.length} latest docs agent job${records.length === 1 ? '' : 's'}`,
    blocks: [section(`*Your latest docs agent jobs*\n${lines.join('\n')}`)],
  };
}

/** Words the assistant thread does not take (weekly schedules, CSV files): where to use them instead. */
export function assistantElsewhereMessage(what: 'schedule' | 'csv', command: string): SlackMessage {
  const text =
    what === 'schedule'
      ? `Weekly posts belong to a channel: use \`${command} schedule …\` in the channel that should get them.`
      : `CSV files are shared in a channel: use \`${command} … csv\` there. Here is the report without it.`;
  return { text, blocks: [section(text)] };
}

export function assistantTextMessage(text: string): SlackMessage {
  return { text: truncate(text, LIMITS.fallbackText), blocks: [section(text)] };
}
