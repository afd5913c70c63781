import { systemClock } from '../common/clock.js';
import type { Config } from '../common/config.js';
import { secretsOf } from '../common/config-secrets.js';
import { createLogger } from '../common/logger.js';
import { Metrics } from '../metrics/metrics.js';
import { OwedEditsSlot } from '../slack/owed-edits.js';
import { AgentLifecycle, type StartParts } from './agent-lifecycle.js';
import { oneFatal } from './app-steps.js';
import { wireDeliveries } from './delivery-wiring.js';
import type { Scope, ScopeOptions } from './docs-agent.js';
import { wireHome } from './home-wiring.js';
import { wireInsights } from './insights-wiring.js';
import { wireJobFeedback, wireJobs } from './jobs-wiring.js';
import { type ScopeBase, wireScopeState } from './scope-wiring.js';

import { wireListeners, wireSlackSide } from './slack-wiring.js';

/**
 * One scope of the bot (OAuth mode: one tenant's, built on demand and evicted when idle; single-workspace
 * mode: the token's workspace, built once), as named steps. The process (`app.ts`) hands it what is shared:
 * the edge (HTTP pools, GitHub clients, Slack's one WebClient and the one Bolt app every request runs on) and
 * its Slack side over that edge (`slackApp`, fed by the process's front door); in OAuth mode also the queue
 * plane (`plane`), the replica's ticker (`periodic`), the due index, the Redis connections, the process LRU
 * (`tenant.caches`) and the tenant's metrics recorder. Built per scope: its state (stores in its key space),
 * then its services: delivery, insights, Home and settings, jobs, the listeners' deps.
 */
export function createScope(config: Config, options: ScopeOptions): Scope {
  const logger = options.logger ?? createLogger({ level: config.logLevel, secrets: secretsOf(config) });
  const clock = options.clock ?? systemClock;
  // A tenant's runtime (OAuth mode) counts into its own metrics; the process serves them all together.
  const metrics = options.metrics ?? new Metrics();
  const life = new AgentLifecycle();
  const fatal = oneFatal(); // a revoked or rejected token, or the app uninstalled: main.ts exits
  const { edge } = options;
  const base: ScopeBase = { config, options, logger, clock, metrics, edge };

  // Per scope: its stores in its key space (memory or Redis: the one adapter factory), its docs clients.
  const scope = wireScopeState(base);
  const { adapters, docsApi } = scope;
  // Its Slack side (OAuth mode: no Bolt app of its own), then the one delivery path everything owed takes.
  const slack = wireSlackSide(base, { adapters, fatal });
  // Changes owed to shared messages later (a mute's end) are applied by them once the jobs step builds them.
  const edits = new OwedEditsSlot();
  const now = options.outboxClock?.now;
  const deliveries = wireDeliveries({
    config,
    adapters,
    gateway: slack.gateway,
    logger,
    metrics,
    edits,
    now,
  });
  // Its use cases: insights, Home and settings, then jobs (changes shown on Home, PRs handed to insights).
  const insights = wireInsights(base, scope, { gateway: slack.gateway, outbox: deliveries });
  const feedback = wireJobFeedback(base, adapters);
  const { weekly, alerts, impact } = insights;
  const homeParts = {
    gateway: slack.gateway,
    outbox: deliveries,
    weekly,
    alerts,
    feedback,
    reports: insights.reports,
  };
  const { settings, home } = wireHome(base, scope, homeParts);
  const wired = wireJobs(base, scope, {
    ...{ gateway: slack.gateway, deliveries, insights, home, edits },
    stopping: () => life.stopping,
  });
  const { jobs, reconciler, pulls } = wired;
  // Never built, the assistant has no status lines to stop, nor the reports a chart fill.
  const assistant = { close: () => wired.notices.ifBuilt()?.assistant.close() };
  // Its listeners' deps, which the Slack side hands each request it serves.
  wireListeners(base, scope, { slack, deliveries, insights, jobs: wired, home, settings, feedback, fatal });

  // Its lifecycle: start and stop once each (OAuth mode: the tenant's start and its eviction's stop).
  const parts: StartParts = {
    ...{ config, adapters, slack, jobs, reconciler, pulls, impact, weekly, alerts, deliveries },
    ...{ pollQueue: adapters.pollQueue, assistant, home, docsApi, clock, logger },
    ...(options.tenant ? { tenant: options.tenant } : {}),
    beforeStop: async () => insights.reports.ifBuilt()?.chartFill.stop(),
  };
  return {
    logger,
    jobs,
    onFatal: (listener) => fatal.listen(listener),
    // OAuth mode on Redis: the replica's due index named this scope (issue 34); its next due time after.
    state: () => adapters.state(),
    reconcileDue: () => reconciler.runIndexed().then(() => adapters.nextDueAt?.()),
    // drain(0) waits no longer than a timer tick: the count of listeners and after-ack work still running.
    busy: async () => deliveries.busy() || (await slack.drain(0)) > 0,
    start: () => life.start(parts),
    stop: () => life.stop(parts),
  };
}
