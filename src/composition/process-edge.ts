import type { Config } from '../common/config.js';
import type { Logger } from '../common/logger.js';
import { GitHubClients } from '../github/github-client.js';
import { OriginDispatchers } from '../platform/dispatchers.js';
import { createEdgeApp, type EdgeApp } from '../slack/edge-app.js';
import { WebClients } from '../slack/web-clients.js';

/**
 * What talks to the outside, built once per process and shared by every scope (OAuth mode: every tenant's):
 * the HTTP pools to upstream origins, the GitHub client (one Octokit, request slots per scope) and
 * the Slack Web API client (one for every token) and the one Bolt app every tenant's requests go through.
 * A scope's stop leaves it open; the process closes it last.
 */
export interface ProcessEdge {
  /** One undici pool per upstream origin (the docs platform's). */
  dispatchers: OriginDispatchers;
  /** One Octokit per GitHub API URL; each scope reads through it with its own token, ETags and slots. */
  github: GitHubClients;
  /** The one Slack WebClient, seen per bot token: every scope's calls and Bolt's per-request clients. */
  slack: WebClients;
  /** The process's one Bolt app, its listeners registered once: each request runs with its tenant's deps. */
  slackApp: EdgeApp;
  /** Once, at the process's stop, after every scope stopped. */
  close(): Promise<void>;
}

export function createProcessEdge(config: Config, logger: Logger): ProcessEdge {
  const dispatchers = new OriginDispatchers();
  const slack = new WebClients();
  return {
    dispatchers,
    github: new GitHubClients(),
    slack,
    slackApp: createEdgeApp(config, logger, slack),
    close: async () => {
      await dispatchers.close();
    },
  };
}
