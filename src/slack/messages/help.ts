import type { SlackMessage } from './types.js';

export const MAX_PROMPT_CHARS = 4000;

/** A placeholder such as `<instruction>` in mrkdwn: Slack reads a bare `<…>` as a link or a mention. */
export const placeholder = (name: string) => `&lt;${name}&gt;`;

export interface DocsAgentHelpOptions {
  /** OAuth mode: docs projects are connected from Slack (`connect`, `disconnect`); else set by the operator. */
  connectable?: boolean;
}

/** Usage for `/docs-agent` with no text or `help`: short, grouped, only what works in this deployment. */
export function docsAgentHelpMessage(
  command = '/docs-agent',
  options: DocsAgentHelpOptions = {},
): SlackMessage {
  const instruction = placeholder('instruction');
  const project = options.connectable
    ? `*Docs project* \`${command} project\` shows this channel's · \`${command} connect\` · \`${command} disconnect\` · who may: \`${command} managers\` · \`${command} settings\``
    : `*Docs project* \`${command} project\` shows which one this channel's jobs and reports use`;
  const text = [
    `*Start a job* the agent edits your docs and opens a pull request`,
    `• \`${command} ${instruction}\` (up to ${MAX_PROMPT_CHARS.toLocaleString('en-US')} characters), an @mention in a thread, or a DM to me`,
    '• Reply in the job’s thread to follow up; start with `//` to talk past the agent',
    `*Your jobs* \`${command} list\` · \`${command} status ${placeholder('job id')}\` · my Home tab`,
    project,
    '*Reports* `/docs-views help` · `/docs-health help`',
  ].join('\n');
  return {
    text: `${command} help: start a docs agent job with ${command} ${instruction}`,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text } },
      {
        type: 'context',
        elements: [
          { type: 'mrkdwn', text: `Example: \`${command} Document the new 429 response on the jobs API\`` },
        ],
      },
    ],
  };
}
