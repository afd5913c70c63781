import type { SlackMessage } from './types.js';

export const MAX_PROMPT_CHARS = 4000;

/** Usage for `/docs-agent` with no text or `help`. */
export function docsAgentHelpView(command = '/docs-agent'): SlackMessage {
  const text = [
    `*${command}* starts a docs agent job: the agent edits your docs and opens a pull request.`,
    '',
    '*Usage*',
    `• \`${command} <instruction>\`: start a job with a plain-language instruction (up to ${MAX_PROMPT_CHARS.toLocaleString('en-US')} characters).`,
    `• \`${command} help\`: show this help.`,
    '',
    '*Examples*',
    `• \`${command} Document the new 429 response on the jobs API\``,
    `• \`${command} Fix the broken links on the quickstart page\``,
    `• \`${command} Add a Python example to the authentication guide\``,
    '',
    'I post a job card in this channel and keep it up to date. When the agent is done, I reply in the card’s thread with the pull request.',
  ].join('\n');
  return {
    text: `${command} help: start a docs agent job with ${command} <instruction>`,
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
  };
}
