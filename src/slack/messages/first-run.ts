import type { KnownBlock } from '@slack/types';
import type { AppHomeInput } from './app-home.js';
import { placeholder } from './help.js';

/** What the first-run checklist reads of a Home: the manager's settings, their jobs and weekly reports. */
export type FirstRunInput = Pick<AppHomeInput, 'settings' | 'jobs' | 'schedules'>;

/**
 * The first steps, on the Home of whoever may manage docs-agent in a workspace installed with "Add to
 * Slack": connect a project, try a job, schedule a report. Each is ticked from what Home already knows, and
 * the checklist is gone once all three are done (and for everyone else, and in single-workspace mode).
 */
export function firstRunBlocks(input: FirstRunInput): KnownBlock[] {
  if (!input.settings?.manage) return [];
  const steps: Array<[boolean, string]> = [
    [
      input.settings.connections.length > 0,
      '*Connect a docs project*: its project ID and an admin key, with *Connect a project* below',
    ],
    [
      input.jobs.length > 0,
      `*Start a job*: \`/docs-agent ${placeholder('instruction')}\` in a channel, or *New job* above`,
    ],
    [
      input.schedules.length > 0,
      '*Schedule a weekly report*: *Add weekly post* below, or `/docs-views schedule monday 09:00` in the channel that should get it',
    ],
  ];
  const done = steps.filter(([isDone]) => isDone).length;
  if (done === steps.length) return [];
  const lines = steps.map(
    ([isDone, text]) => `${isDone ? ':white_check_mark:' : ':white_large_square:'} ${text}`,
  );
  return [
    {
      type: 'section',
      text: { type: 'mrkdwn', text: `*Get started* (${done} of ${steps.length} done)\n${lines.join('\n')}` },
    },
    { type: 'divider' },
  ];
}
