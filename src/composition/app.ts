import { systemClock } from '../common/clock.js';
import type { Config } from '../common/config.js';
import { secretsOf } from '../common/config-secrets.js';
import { listenOn } from '../common/listen-address.js';
import { createLogger, type Logger, SecretSet } from '../common/logger.js';
import { type MetricsServer, startMetricsServer } from '../metrics/metrics-server.js';
import { createFrontDoor } from '../slack/front-door.js';
import { within } from './app-steps.js';
import type { DocsAgent } from './docs-agent.js';
import { healthRoutes } from './health.js';
import { type OAuthOptions, oauthTenants } from './oauth/oauth-tenants.js';
import { createProcessEdge } from './process-edge.js';
import { SHUTDOWN_STEP_MS } from './shutdown-budget.js';
import type { WorkspaceOptions } from './tenants.js';
import { workspaceTenant } from './workspace-tenant.js';

export type { DocsAgent } from './docs-agent.js';

/** The process's options: its logger and clock, and tests' hooks into either mode. */
export type AgentOptions = { logger?: Logger } & WorkspaceOptions & OAuthOptions;

/**
 * Composition root: the bot, built once per process, in either mode. Built here and shared by every tenant:
 * the logger, the edge (HTTP pools, GitHub clients, Slack's one WebClient and the one Bolt app every request
 * runs on), the front door (POST /slack/events or Socket Mode, health, install pages) and /metrics. What
 * differs between the modes is only where a request's tenant comes from (`Tenants`): OAuth mode's directory of
 * installs, each tenant's scope built on demand (oauth/oauth-tenants.ts), or single-workspace mode's one
 * workspace, its scope built once (workspace-tenant.ts). A scope (scope.ts) is what a tenant is handed to.
 *
 *   front door → tenant (resolved once per request or job) → its scope's use cases → stores and queues
 */
export function createDocsAgent(config: Config, options: AgentOptions = {}): DocsAgent {
  const secrets = new SecretSet(secretsOf(config));
  const logger = options.logger ?? createLogger({ level: config.logLevel, secrets });
  const clock = options.clock ?? systemClock;
  const edge = createProcessEdge(config, logger);
  const parts = { config, logger, secrets, clock, edge };
  const { oauth } = config;
  // SLACK_CLIENT_ID & co: every workspace that installs it ("Add to Slack"); else the one of SLACK_BOT_TOKEN.
  const tenants = oauth ? oauthTenants({ ...parts, oauth }, options) : workspaceTenant(parts, options);
  let stopping = false;
  let metricsServer: MetricsServer | undefined;
  const door = createFrontDoor({
    config,
    logger,
    routes: healthRoutes({
      stopping: () => stopping,
      state: () => tenants.state(),
      slackConnected: () => door.open() && tenants.connected(),
    }),
    ...(tenants.installer ? { installer: tenants.installer } : {}),
    dispatch: (request, source) => tenants.dispatch(request, source),
  });
  /** Whoever takes the metrics server closes it, once (a stop may come while start opens it). */
  const closeMetrics = () => {
    const server = metricsServer;
    metricsServer = undefined;
    return server?.close() ?? Promise.resolve();
  };
  let started: Promise<number> | undefined;
  let stopped: Promise<void> | undefined;
  return {
    logger,
    metricsPort: () => metricsServer?.port,
    get jobs() {
      return tenants.jobs();
    },
    onFatal: (listener) => tenants.onFatal(listener),
    ...(tenants.periodicRuns ? { periodicRuns: tenants.periodicRuns } : {}),
    start() {
      started ??= (async () => {
        // The token first (single-workspace mode): a refused one fails start before anything listens.
        await tenants.check?.();
        // The port opens next, so /healthz answers and /readyz says why not ready while Redis is down.
        const port = await door.start(listenOn(config));
        if (stopping) await door.stop(); // stopped while it opened
        metricsServer = await startMetricsServer(tenants.metrics, config.metrics, logger);
        if (stopping)
          await closeMetrics().catch(() => undefined); // stopped while it opened
        else await tenants.start(port);
        return port;
      })();
      return started;
    },
    stop() {
      stopped ??= (async () => {
        stopping = true; // not ready from now on: load balancers and orchestrators send no more work here
        await within(door.stop(), SHUTDOWN_STEP_MS.slackReceiver, 'closing the Slack front door', logger);
        // Work acknowledged finishes, queues and leases are handed back, the state closes.
        await tenants.stop();
        if (started) await within(started, SHUTDOWN_STEP_MS.startUp, 'finishing start-up', logger);
        await within(
          edge.close(),
          SHUTDOWN_STEP_MS.upstreamPools,
          'closing the upstream connections',
          logger,
        );
        await within(closeMetrics(), SHUTDOWN_STEP_MS.metricsPort, 'closing the metrics port', logger);
      })();
      return stopped;
    },
  };
}
