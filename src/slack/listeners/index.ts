import type { App } from '@slack/bolt';
import { registerDocsAgentCommand } from './commands/docs-agent.js';
import type { SlackDeps } from './deps.js';

export type { SlackDeps } from './deps.js';

export function registerListeners(app: App, deps: SlackDeps): void {
  registerDocsAgentCommand(app, deps);
}
