import { createHash } from 'node:crypto';
import type { Clock } from '../common/clock.js';
import { describeError } from '../common/errors.js';
import type { HourlyQuota } from '../common/hourly-quota.js';
import type { Logger } from '../common/logger.js';
import type { VersionedRecords } from '../common/versioned-records.js';
import type { Outbox } from '../delivery/ports.js';
import type { EvidenceStore } from '../insights/health/ports.js';
import type { JobStore } from '../jobs/ports.js';
import { SharedMessages } from '../slack/posted-message-edits.js';
import type { AdapterOptions, StateBackend } from '../state/adapters.js';
import type { ScopeOptions } from './docs-agent.js';

/** Waits for a shutdown step at most `ms`; a step that fails or overruns is logged and left behind. */
export async function within(
  step: Promise<unknown>,
  ms: number,
  what: string,
  logger: Logger,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    step.then(
      () => 'done' as const,
      (error: unknown) => {
        logger.warn({ error: describeError(error) }, `shutdown: ${what} failed`);
        return 'failed' as const;
      },
    ),
    new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), ms);
    }),
  ]);
  clearTimeout(timer);
  if (outcome === 'timeout') logger.warn({ ms }, `shutdown: ${what} took too long; moving on`);
}

export function stateNote(backend: StateBackend): string {
  return backend === 'redis'
    ? 'state is in Redis (REDIS_URL): jobs, threads and polls survive restarts and are shared by replicas'
    : 'state is in memory (set REDIS_URL to keep it across restarts)';
}

/** What the state adapters take from the agent's options (tests' prepared stores and timers, a tenant's key space). */
export function adapterOptions(
  options: Omit<ScopeOptions, 'slackApp' | 'edge'>,
  logger: Logger,
  clock: Clock,
): AdapterOptions {
  return {
    logger,
    clock,
    ...(options.jobStore ? { jobStore: options.jobStore } : {}),
    ...(options.schedulerTimers ? { schedulerTimers: options.schedulerTimers } : {}),
    ...(options.impactTimers ? { impactTimers: options.impactTimers } : {}),
    ...(options.namespace ? { namespace: options.namespace } : {}),
    ...(options.sharedRedis ? { sharedRedis: options.sharedRedis } : {}),
    ...(options.dueIndex ? { dueIndex: options.dueIndex } : {}),
    ...(options.plane && options.tenant
      ? { plane: { plane: options.plane, tenant: options.tenant.key } }
      : {}),
  };
}

/** The line that says the bot is up, and where Slack reaches it. */
export function startedLine(mode: 'http' | 'socket', port: number, backend: StateBackend, tenant?: string) {
  if (tenant) return `tenant ${tenant} is ready; ${stateNote(backend)}`;
  return mode === 'http'
    ? `docs-agent is listening for Slack on port ${port} (POST /slack/events); ${stateNote(backend)}`
    : `docs-agent is connected in Socket Mode (health on port ${port}); ${stateNote(backend)}`;
}

/** One fatal reason per process, to whoever listens (main.ts), or remembered until someone does. */
export function oneFatal() {
  let reason: string | undefined;
  let listener: ((reason: string) => void) | undefined;
  return {
    raise(why: string): void {
      if (reason !== undefined) return;
      reason = why;
      listener?.(why);
    },
    listen(fn: (reason: string) => void): void {
      listener = fn;
      if (reason !== undefined) fn(reason);
    },
  };
}

/**
 * Signed requests seen once: a signature claimed for Slack's five-minute replay window (plus a minute), in
 * the shared store, so a replay to any replica is dropped (Bolt refuses older timestamps; future-dated
 * ones are refused before Bolt).
 */
export function replayGuard(store: Pick<JobStore, 'claim'>) {
  return {
    firstSeen: (signature: string) =>
      store.claim(`replay:${createHash('sha256').update(signature).digest('hex')}`, 6 * 60_000),
  };
}

/** The budgets a job request counts against: its project's, and the requester's share of it. */
export function jobBudgets(
  adapters: {
    agentJobQuotaFor(projectId: string): HourlyQuota;
    agentJobUserQuotaFor(projectId: string, userId: string): HourlyQuota;
  },
  share: number,
) {
  return {
    quotaFor: (projectId: string) => adapters.agentJobQuotaFor(projectId),
    userQuotaFor: (projectId: string, userId: string) => ({
      quota: adapters.agentJobUserQuotaFor(projectId, userId),
      share,
    }),
  };
}

/** Where Slack's `response_url`s point: its hooks host, and a configured SLACK_API_URL's origin (proxy, fake). */
export function responseUrlOrigins(apiUrl: string | undefined): string[] {
  return ['https://hooks.slack.com', ...(apiUrl ? [new URL(apiUrl).origin] : [])];
}

/**
 * Shared messages changed in place when someone acts on them: their render model in the evidence store
 * (a prefix of its own, as the PR index's), their updates owed through the outbox.
 */
export function sharedMessages(
  outbox: Outbox,
  store: EvidenceStore,
  models: VersionedRecords,
  clock: Clock,
): SharedMessages {
  return new SharedMessages({
    outbox,
    store: {
      put: (key, json, ttlMs) => store.put(key, json, ttlMs),
      get: (key) => store.get(key),
    },
    models,
    now: () => clock.now(),
  });
}
