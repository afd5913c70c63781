import { Metrics } from '../metrics/metrics.js';
import { webClientOptions } from '../slack/bolt-core.js';
import { createTenantSlackApp, type TenantSlackApp } from '../slack/tenant-slack-app.js';
import { WorkspaceIdentity } from '../slack/workspace-identity.js';
import { createScope } from './scope.js';
import type { ProcessParts, Tenants, WorkspaceOptions } from './tenants.js';

/**
 * Single-workspace mode's one tenant: the workspace of SLACK_BOT_TOKEN, served as OAuth mode serves a tenant
 * (issue 43 §6): its scope is built once, its Slack side is a tenant's (the installation auth.test describes)
 * over the process's one Bolt app, its requests come from the process's front door. `options.tenant`
 * (tests of a tenant's scope) makes it that tenant's scope instead.
 */
export function workspaceTenant(p: ProcessParts, options: WorkspaceOptions): Tenants {
  const { config, logger, edge } = p;
  const metrics = new Metrics();
  const client = edge.slack.for(config.slack.botToken, webClientOptions(config, logger));
  const identity = new WorkspaceIdentity(config.slack.botToken, client, logger, config.slack.apiUrl);
  const { tenant } = options;
  const installation = tenant ? () => tenant.installation : () => identity.installation();
  let port = 0;
  let slack: TenantSlackApp | undefined;
  const scope = createScope(config, {
    ...options,
    logger,
    clock: p.clock,
    metrics,
    edge,
    slackApp: (slackOptions) => {
      const side = createTenantSlackApp(config, logger, installation, slackOptions, undefined, () => false, {
        app: edge.slackApp,
        clients: edge.slack,
      });
      slack = side;
      // The front door is the process's, open before the scope starts: its port is the scope's.
      return { ...side, mode: config.slack.appToken ? 'socket' : 'http', start: async () => port };
    },
  });
  return {
    metrics,
    check: () => identity.verify(),
    dispatch: async (request) => {
      await identity.identify(); // not known yet (Slack unreachable at start): asked again
      await slack!.receive(request);
    },
    state: () => scope.state(),
    connected: () => identity.installation() !== undefined,
    start: async (at) => {
      port = at;
      await scope.start();
    },
    stop: async () => {
      identity.stop();
      await scope.stop();
    },
    jobs: () => scope.jobs,
    onFatal: (listener) => scope.onFatal(listener),
  };
}
