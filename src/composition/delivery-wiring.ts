import type { Config } from '../common/config.js';
import type { Logger } from '../common/logger.js';
import { Deliveries } from '../delivery/deliveries.js';
import type { DeliveryMetrics } from '../delivery/ports.js';
import { Reconciler } from '../delivery/reconciler.js';
import type { JobService } from '../jobs/job-service.js';
import { SlackDeliverySender } from '../slack/delivery-sender.js';
import type { SlackGateway } from '../slack/slack-gateway.js';
import { TokenRejections } from '../slack/token-rejections.js';
import type { AdapterSet } from '../state/adapters.js';

/** How often each replica looks for owed deliveries nobody holds (a lease lapsed, a retry due). */
const DELIVERY_RECONCILE_MS = 1_000;
/** How often each replica looks for watched jobs without a pending poll (one store read per watched job). */
const WATCH_RECONCILE_MS = 5_000;

/**
 * The one delivery path: everything the bot owes Slack is recorded in the outbox, then attempted under a
 * lease renewed before each call and longer than the longest one: a response_url answer may make two POSTs
 * of the configured timeout each (a refused layout is sent again as text), every other attempt one call.
 * A call that got no answer may still land for twice the timeout (the settle time): look-ups, hand-backs
 * and the sweep wait that long.
 */
export function wireDeliveries(input: {
  config: Config;
  adapters: Pick<AdapterSet, 'deliveryStore'>;
  gateway: SlackGateway;
  logger: Logger;
  metrics: DeliveryMetrics;
}): Deliveries {
  return new Deliveries({
    store: input.adapters.deliveryStore,
    sender: new SlackDeliverySender(
      input.gateway,
      input.config.slack.timeoutMs,
      new TokenRejections({
        logger: input.logger.child({ component: 'delivery' }),
        tenant: input.config.oauth !== undefined,
      }),
    ),
    logger: input.logger.child({ component: 'delivery' }),
    leaseMs: 2 * input.config.slack.timeoutMs + 5_000,
    settleMs: 2 * input.config.slack.timeoutMs,
    // Long enough for the recorder's own first attempt to take the lease; short if it died meanwhile.
    graceMs: Math.min(2 * input.config.slack.timeoutMs, 5_000),
    metrics: input.metrics,
  });
}

/**
 * Every replica, leader-free: owed deliveries nobody holds, watched jobs without a pending poll, followed
 * PRs without a pending read (and wake-ups a stopping replica recorded). Start-up is one `runOnce`.
 */
export function wireReconciler(input: {
  deliveries: Pick<Deliveries, 'reconcile'>;
  jobs: Pick<JobService, 'reconcileWatching' | 'takeOverStarts'>;
  pulls: { reconcile(): Promise<number> };
  logger: Logger;
}): Reconciler {
  return new Reconciler(
    [
      { name: 'deliveries', everyMs: DELIVERY_RECONCILE_MS, run: () => input.deliveries.reconcile() },
      { name: 'watched-jobs', everyMs: WATCH_RECONCILE_MS, run: () => input.jobs.reconcileWatching() },
      // Job starts a stopping replica handed over: a person is waiting for the card, so checked often.
      { name: 'handed-over-starts', everyMs: DELIVERY_RECONCILE_MS, run: () => input.jobs.takeOverStarts() },
      { name: 'followed-pull-requests', everyMs: WATCH_RECONCILE_MS, run: () => input.pulls.reconcile() },
    ],
    input.logger.child({ component: 'reconciler' }),
  );
}
