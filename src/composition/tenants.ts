import type { Clock } from '../common/clock.js';
import type { Config } from '../common/config.js';
import type { Logger, SecretSet } from '../common/logger.js';
import type { JobService } from '../jobs/job-service.js';
import type { MetricsExposition } from '../metrics/metrics-server.js';
import type { InstallerInput } from '../slack/oauth/installer.js';
import type { InboundRequest } from '../slack/tenant-slack-app.js';
import type { TenantSource } from '../tenants/tenant.js';
import type { ScopeOptions } from './docs-agent.js';
import type { ProcessEdge } from './process-edge.js';

/** What the process builds once and hands to its tenants (app.ts). */
export interface ProcessParts {
  config: Config;
  logger: Logger;
  secrets: SecretSet;
  clock: Clock;
  edge: ProcessEdge;
}

/**
 * Where the process's requests and work find their tenant: OAuth mode's directory of installs (a scope per
 * tenant, built on demand), or single-workspace mode's one workspace (its scope built once). The process
 * (app.ts) owns the front door, the edge and /metrics; this is all that differs between the modes.
 */
export interface Tenants {
  /** Served at GET /metrics. */
  metrics: MetricsExposition;
  /** OAuth mode: "Add to Slack", served by the front door. */
  installer?: InstallerInput;
  /** Before the front door opens: single-workspace mode's token check (a refused token fails start). */
  check?(): Promise<void>;
  /** A verified request from Slack, with the tenant it names. */
  dispatch(request: InboundRequest, source: TenantSource | undefined): Promise<void>;
  /** For readiness: whether the state store answers, and whether Slack is reachable. */
  state(): Promise<'in-memory' | 'ok' | 'unreachable'>;
  connected(): boolean;
  /** After the front door opened on `port`: resumes work (and, OAuth mode, starts the plane and upkeep). */
  start(port: number): Promise<void>;
  /** After the front door closed: finishes work in flight, hands leases back, closes the state. */
  stop(): Promise<void>;
  /** Single-workspace mode: its scope's jobs (tests start a job directly). */
  jobs(): JobService;
  onFatal(listener: (reason: string) => void): void;
  periodicRuns?(): number;
}

/** Tests' and benchmarks' hooks into single-workspace mode's scope (prepared stores, time, a tenant's scope). */
export type WorkspaceOptions = Pick<
  ScopeOptions,
  | 'clock'
  | 'schedulerTimers'
  | 'jobStore'
  | 'sharedMessageRecords'
  | 'outboxClock'
  | 'impactTimers'
  | 'tenant'
  | 'namespace'
>;
