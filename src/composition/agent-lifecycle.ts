import type { Config } from '../common/config.js';
import { welcomeOnStart } from '../slack/welcome.js';
import type { AdapterSet } from '../state/adapters.js';
import { startedLine, within } from './app-steps.js';
import { type ShutdownParts, shutDown } from './shutdown.js';

/** What a scope (or the single workspace's agent) starts, besides what `ShutdownParts` closes. */
export interface StartParts extends Omit<ShutdownParts, 'adapters'> {
  config: Config;
  adapters: Pick<AdapterSet, 'backend' | 'waitUntilReady' | 'close'>;
  slack: ShutdownParts['slack'] & {
    start(): Promise<number>;
    mode: 'http' | 'socket';
    gateway: Parameters<typeof welcomeOnStart>[1];
  };
  jobs: { startWatching(): Promise<number> };
  reconciler: ShutdownParts['reconciler'] & { runOnce(): Promise<unknown>; start(): void };
  pulls: ShutdownParts['pulls'] & { start(): Promise<void> };
  impact: ShutdownParts['impact'] & { start(): void };
  weekly: ShutdownParts['weekly'] & { start(): Promise<void> };
  alerts: ShutdownParts['alerts'] & { start(): Promise<void> };
  deliveries: ShutdownParts['deliveries'] & Parameters<typeof welcomeOnStart>[2];
  clock: { now(): number };
  /** OAuth mode: the tenant this scope serves (its welcome DM). */
  tenant?: Parameters<typeof welcomeOnStart>[0] & { key: string };
  /** Closed at the start of a stop, before the rest (the background chart fill). */
  beforeStop(): Promise<void>;
}

/**
 * How an agent starts and stops, once each. A stop during start-up ends it between steps and waits for the
 * step under way, so nothing started late (a worker, a timer) outlives the stop. `stopping` is read by the
 * parts built before (readiness, job start hand-overs).
 */
export class AgentLifecycle {
  stopping = false;
  private starting: Promise<number> | undefined;
  private stopped: Promise<void> | undefined;
  private readonly abort = new AbortController();
  start(p: StartParts): Promise<number> {
    this.starting ??= this.run(p);
    return this.starting;
  }

  stop(p: StartParts): Promise<void> {
    this.stopped ??= (async () => {
      // Not ready from now on: load balancers and orchestrators stop sending work here.
      this.stopping = true;
      this.abort.abort();
      if (this.starting) await within(this.starting, 5_000, 'finishing start-up', p.logger);
      await p.beforeStop();
      await shutDown(p);
    })();
    return this.stopped;
  }

  private async run(p: StartParts): Promise<number> {
    const { logger } = p;
    // The port opens first, so /healthz answers (alive) and /readyz says why not ready while Redis is down.
    const port = await p.slack.start();
    if (!(await p.adapters.waitUntilReady(this.abort.signal)) || this.stopping) return port;
    await p.pulls.start();
    // Start-up is one pass of the reconciler: watched jobs without a pending poll, owed deliveries.
    const resumed = this.stopping ? 0 : await p.jobs.startWatching();
    if (!this.stopping) await p.reconciler.runOnce();
    if (this.stopping) return port;
    p.reconciler.start();
    if (p.tenant) welcomeOnStart(p.tenant, p.slack.gateway, p.deliveries, p.clock, logger);
    p.impact.start();
    await p.weekly.start();
    if (!this.stopping) await p.alerts.start();
    const { mode } = p.slack;
    const line = startedLine(mode, port, p.adapters.backend, p.tenant?.key);
    logger.info(
      { mode, port, state: p.adapters.backend, resumedJobs: resumed, project: p.config.docs.projectId },
      line,
    );
    return port;
  }
}
