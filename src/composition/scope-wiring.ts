import type { AccessPolicy } from '../common/access-policy.js';
import type { Clock } from '../common/clock.js';
import type { Config } from '../common/config.js';
import type { Logger } from '../common/logger.js';
import type { CacheView } from '../common/process-lru.js';
import { ProjectDirectory } from '../common/projects.js';
import type { Metrics } from '../metrics/metrics.js';
import { DocsApiClient } from '../platform/docs-client.js';
import { type AdapterSet, createAdapters } from '../state/adapters.js';
import { adapterOptions } from './app-steps.js';
import type { ScopeOptions } from './docs-agent.js';
import type { ProcessEdge } from './process-edge.js';
import { accessPolicyFor } from './settings-wiring.js';

/** What every step of a scope is handed: its config and options, its logger, clock and metrics. */
export interface ScopeBase {
  config: Config;
  options: ScopeOptions;
  logger: Logger;
  clock: Clock;
  metrics: Metrics;
  /** The process's clients of the outside (one per process; single-workspace mode's own). */
  edge: ProcessEdge;
}

/** A scope's own state and clients, built before any of its services. */
export interface ScopeState {
  /** The docs client of DOCS_PROJECT_ID (closed at stop; over the process's pool). */
  docsApi: DocsApiClient;
  /** A project's docs client, with the project's own admin key or DOCS_API_KEY. */
  apiFor(projectId: string): DocsApiClient;
  /** Its stores, budgets and queues: in memory, or in Redis in its own key space. */
  adapters: AdapterSet;
  projects: ProjectDirectory;
  access: AccessPolicy;
  /** OAuth mode: its part of the process's one bounded cache; undefined: each user keeps its own. */
  cache<V>(kind: string): CacheView<V> | undefined;
}

/** A scope's state (its stores in its key space), its docs clients, its projects and its access policy. */
export function wireScopeState({ config, options, logger, clock, metrics, edge }: ScopeBase): ScopeState {
  const docsApi = new DocsApiClient({
    baseUrl: config.docs.apiUrl,
    apiKey: config.docs.apiKey,
    projectId: config.docs.projectId,
    timeoutMs: config.docs.timeoutMs,
    logger: logger.child({ component: 'docs-api' }),
    metrics,
    keyConnectedInSlack: options.tenant !== undefined && options.tenant.key !== config.oauth?.upgradedTenant,
    dispatchers: edge.dispatchers, // the process's pool
  });
  // Memory, or Redis with REDIS_URL (shared by replicas, kept across restarts): the one place that chooses.
  const adapters = createAdapters(config, adapterOptions(options, logger, clock));
  // Channels map to docs projects (DOCS_CHANNEL_PROJECTS), each with its own admin key or DOCS_API_KEY.
  const projects =
    options.projects?.directory ?? new ProjectDirectory(config.docs.projectId, config.docs.channelProjects);
  const projectKeys = options.projects?.keys ?? config.docs.projectKeys;
  return {
    docsApi,
    apiFor: (projectId) => docsApi.forProject(projectId, projectKeys.get(projectId)),
    adapters,
    projects,
    access: accessPolicyFor(config, options.tenant),
    cache: <V>(kind: string) => options.tenant?.caches?.view<V>(kind), // OAuth: one per process
  };
}
