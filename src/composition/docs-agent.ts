import type { Clock } from '../common/clock.js';
import type { Logger } from '../common/logger.js';
import type { CacheScope } from '../common/process-lru.js';
import type { ProjectDirectory } from '../common/projects.js';
import type { VersionedRecords } from '../common/versioned-records.js';
import type { PeriodicRuns } from '../delivery/reconciler.js';
import type { JobService } from '../jobs/job-service.js';
import type { JobStore } from '../jobs/ports.js';
import type { Metrics } from '../metrics/metrics.js';
import type { SlackApp, SlackAppOptions } from '../slack/slack-app.js';
import type { DueMarker, QueuePlane, SchedulerTimers, SharedRedisConnections } from '../state/adapters.js';
import type { TenantDirectory } from '../tenants/ports.js';
import type { TenantHold, TenantInstallation, TenantKey, TenantSettings } from '../tenants/tenant.js';
import type { ProcessEdge } from './process-edge.js';

/** What a scope (scope.ts) is handed: the process's shared parts, and tests' hooks into its state and time. */
export interface ScopeOptions {
  logger?: Logger;
  clock?: Clock;
  /** Time for the weekly report scheduler (tests pass a manual one); defaults to real timers on `clock`. */
  schedulerTimers?: SchedulerTimers;
  /** A prepared in-memory job store (benchmarks seed thousands of watched jobs); ignored with REDIS_URL. */
  jobStore?: JobStore;
  /** Tests: wraps the shared messages' versioned state (to hold a write and force two changes to race). */
  sharedMessageRecords?: (records: VersionedRecords) => VersionedRecords;
  /** Time of the outbox (tests move it past a mute's end); defaults to the system's. Redis keeps its own. */
  outboxClock?: Clock;
  /** Time for memory mode's impact checks (tests pass a manual one); defaults to real timers on `clock`. */
  impactTimers?: SchedulerTimers;
  /** OAuth mode: the tenant this runtime serves (absent in single-workspace mode). */
  tenant?: TenantScope;
  /** Its Slack side over the process's one Bolt app, fed by the process's front door. */
  slackApp: (options: SlackAppOptions) => SlackApp;
  /** OAuth mode: the tenant's metrics (the process serves every tenant's together). */
  metrics?: Metrics;
  /** OAuth mode: the tenant's projects and keys, as connected in Slack (kept current while running). */
  projects?: { directory: ProjectDirectory; keys: ReadonlyMap<string, string> };
  /** OAuth mode: the tenant's own key space in Redis. */
  namespace?: string;
  /** OAuth mode: the process's Redis command connections, shared by every tenant. */
  sharedRedis?: SharedRedisConnections;
  /** OAuth mode: the replica's one timer, shared by every scope (no timer per tenant). */
  periodic?: PeriodicRuns;
  /** OAuth mode on Redis: this tenant's side of the replica-wide due index. */
  dueIndex?: DueMarker;
  /** OAuth mode on Redis: the replica's shared queue plane (the tenant's queues are views of it). */
  plane?: QueuePlane;
  /** The process's clients of the outside (HTTP pools, GitHub, Slack's WebClient and the one Bolt app). */
  edge: ProcessEdge;
}

/** What a tenant's runtime knows of its tenant (OAuth mode); everything else it reaches is already scoped. */
export interface TenantScope {
  key: TenantKey;
  directory: TenantDirectory;
  /** The current installation (kept current in place: a re-install or a rotated token). */
  installation: TenantInstallation;
  /** The tenant's current settings (kept current in place while the runtime runs). */
  settings: TenantSettings;
  /** Called after this tenant's settings were saved here, so they apply at once (other replicas: within ~2 s). */
  changed(): void;
  /** Set by the runtime's wiring: told each time a new installation (a re-install) is applied in place. */
  installed?: (installation: TenantInstallation) => void;
  /** Set by the runtime's wiring: told when a hold this runtime saw is lifted (Slack calls work again). */
  holdLifted?: (hold: TenantHold) => void;
  /** The tenant's part of the process's one bounded cache (user names, managers, Home hashes, ETags). */
  caches?: CacheScope;
}

/** The bot, as a process runs it (app.ts): one per process, whatever the number of workspaces. */
export interface DocsAgent {
  logger: Logger;
  /** Starts receiving Slack requests and resumes watching jobs; resolves the HTTP port. */
  start(): Promise<number>;
  stop(): Promise<void>;
  /** The metrics port once started (METRICS_PORT; 0 picks a free one). */
  metricsPort(): number | undefined;
  /** Single-workspace mode: its scope's agent-job use cases (tests start a job with evidence directly). */
  jobs: JobService;
  /**
   * Called once when the bot can no longer work at all (single-workspace mode: Slack revoked or rejected its
   * token, or the app was uninstalled): the process should stop and exit non-zero so the orchestrator
   * restarts it or alerts.
   */
  onFatal(listener: (reason: string) => void): void;
  /** OAuth mode: how many periodic runs the replica's one timer holds (issue 43: none per quiet tenant). */
  periodicRuns?(): number;
}

/** One scope (scope.ts): a tenant's, or single-workspace mode's one; started and stopped by the process. */
export interface Scope {
  logger: Logger;
  /** Resumes its watched jobs and owed work, starts its schedules; resolves its Slack side's port. */
  start(): Promise<number>;
  stop(): Promise<void>;
  /** The agent-job use cases. */
  jobs: JobService;
  /** Whether its state store answers (readiness). */
  state(): Promise<'in-memory' | 'ok' | 'unreachable'>;
  /** Its Slack token refused for good, or the app uninstalled (single-workspace mode: the process exits). */
  onFatal(listener: (reason: string) => void): void;
  /**
   * Runs the work the due index found for this scope (owed deliveries, handed-over starts, watched jobs,
   * followed PRs) and resolves when it falls due next (undefined: nothing in flight, or no due index).
   */
  reconcileDue(): Promise<number | undefined>;
  /**
   * Whether it has work in hand that a stop would cut: a delivery attempt or lease, a request's listeners or
   * the work they handed to `afterAck`. An idle scope is only evicted when this resolves false.
   */
  busy(): Promise<boolean>;
}
