import { escapeMrkdwn } from '../markup.js';
import { HOME_CONNECT_ACTION } from './project-settings.js';
import type { SlackMessage } from './types.js';

/**
 * The direct message to whoever installed docs-agent, right after "Add to Slack": what it does in one line,
 * the one thing to do first (connect a docs project, with the button that opens that form), and what next.
 */
export function welcomeMessage(workspaceName: string): SlackMessage {
  const where = escapeMrkdwn(workspaceName);
  return {
    text: `docs-agent is installed in ${where}: connect a docs project to start`,
    blocks: [
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: `:wave: *docs-agent is installed in ${where}.* It starts docs agent jobs that edit your docs and open pull requests, and reports what readers look for.`,
        },
      },
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: '*First, connect a docs project*: its project ID and an admin API key (`svc_…`) from the docs dashboard. It serves the whole workspace; a channel can use another with `/docs-agent connect` there.',
        },
      },
      {
        type: 'actions',
        elements: [
          {
            type: 'button',
            style: 'primary',
            action_id: HOME_CONNECT_ACTION,
            text: { type: 'plain_text', text: 'Connect a docs project' },
          },
        ],
      },
      {
        type: 'context',
        elements: [
          {
            type: 'mrkdwn',
            text: 'Then try `/docs-agent help` in a channel. My Home tab keeps a checklist of the first steps.',
          },
        ],
      },
    ],
  };
}
