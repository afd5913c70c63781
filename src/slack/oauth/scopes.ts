/**
 * The bot scopes "Add to Slack" asks for: exactly manifest.yml's `oauth_config.scopes.bot`
 * (test/unit/oauth-scopes.test.ts keeps them equal), each with the one-line reason the install page shows.
 */
export interface ScopeReason {
  scope: string;
  reason: string;
}

export const BOT_SCOPE_REASONS: readonly ScopeReason[] = [
  {
    scope: 'commands',
    reason: 'Adds /docs-agent, /docs-views, /docs-health and the "Send to docs agent" shortcut.',
  },
  { scope: 'chat:write', reason: 'Posts job cards, replies and reports, and keeps each card up to date.' },
  { scope: 'channels:join', reason: 'Joins a public channel by itself when a command is used there first.' },
  { scope: 'channels:read', reason: 'Checks who is in a public channel you pick for a new job.' },
  { scope: 'groups:read', reason: 'The same for a private channel, once the bot was invited.' },
  {
    scope: 'channels:history',
    reason: 'Reads replies in job threads in public channels, which become follow-up instructions.',
  },
  { scope: 'groups:history', reason: 'The same in private channels the bot was invited to.' },
  { scope: 'im:history', reason: 'The same in your direct messages with the bot.' },
  { scope: 'mpim:history', reason: 'The same in group direct messages the bot was added to.' },
  { scope: 'im:write', reason: 'Sends whoever installs it a welcome message with the first steps.' },
  { scope: 'app_mentions:read', reason: 'Hears @docs-agent mentions that start or follow up on jobs.' },
  { scope: 'users:read', reason: 'Shows people by name instead of user IDs, and keeps outside users out.' },
  { scope: 'reactions:read', reason: 'Hears the emoji reaction that sends a message to the docs agent.' },
  { scope: 'reactions:write', reason: 'Marks your thread reply with 👀 once the agent has it.' },
  { scope: 'files:write', reason: 'Uploads the CSV of a page-views report when you ask for one.' },
  { scope: 'assistant:write', reason: "Works in Slack's AI app side panel: prompts, thread titles, status." },
  { scope: 'links:read', reason: 'Notices docs-site and pull-request links pasted in conversations.' },
  {
    scope: 'links:write',
    reason: "Previews those links with the page's numbers or the pull request's state.",
  },
];

/** The scopes, in the manifest's order, as the authorize URL asks for them. */
export const BOT_SCOPES: readonly string[] = BOT_SCOPE_REASONS.map(({ scope }) => scope);
