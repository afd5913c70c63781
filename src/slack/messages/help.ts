import type { SlackMessage } from './types.js';

export const MAX_PROMPT_CHARS = 4000;

/** Usage for `/docs-agent` with no text or `help`. */
export function docsAgentHelpMessage(command = '/docs-agent'): SlackMessage {
  const text = [
    `*${command}* starts a docs agent job: the agent edits your docs and opens a pull request.`,
    '',
    '*Usage*',
    `• \`${command} <instruction>\`: start a job with a plain-language instruction (up to ${MAX_PROMPT_CHARS.toLocaleString('en-US')} characters).`,
    `• \`${command} list\`: the jobs of this channel I'm still following, with their status and thread.`,
    `• \`${command} status <job id>\`: a job's current state, fresh from the docs platform.`,
    `• \`${command} project\`: which docs project this channel's jobs and reports act on, and who connected it.`,
    `• \`${command} connect\`: connect a docs project (its ID and admin key) for this channel or the whole workspace; \`${command} disconnect\` removes this channel's (else the workspace's). Admins, owners, the installer and people they added, where docs-agent was added to Slack with its install page.`,
    `• \`${command} managers\`: who manages docs-agent here; \`${command} managers add @someone\` / \`remove @someone\`. \`${command} settings\`: this workspace's settings (\`settings external-users on|off\`).`,
    `• \`${command} help\`: show this help.`,
    '• *Mention me* (`@docs-agent <instruction>`) in a channel to start a job in that thread; in an ordinary thread, the earlier messages go along as context.',
    '• *Message me directly* to start a job in our DM.',
    '• *My Home tab* lists the jobs you started, your weekly reports and the budgets left; its *New job* button starts a job in a channel you pick.',
    '',
    '*Examples*',
    `• \`${command} Document the new 429 response on the jobs API\``,
    `• \`${command} Fix the broken links on the quickstart page\``,
    `• \`${command} Add a Python example to the authentication guide\``,
    '',
    'I post a job card and keep it up to date. When the agent is done, I reply in the card’s thread with the pull request.',
    '',
    '*Follow-ups*: reply in a job’s thread to send the agent more instructions (I react with :eyes: when it has them); I reply again when it finishes. Start a reply with `(aside)` or `//` to talk in the thread without instructing the agent.',
  ].join('\n');
  return {
    text: `${command} help: start a docs agent job with ${command} <instruction>`,
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
  };
}
