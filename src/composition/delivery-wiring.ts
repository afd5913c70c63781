import type { Config } from '../common/config.js';
import type { Logger } from '../common/logger.js';
import { Deliveries, deliveryTimingsFor } from '../delivery/deliveries.js';
import type { Delivery } from '../delivery/domain.js';
import type { DeliveryMetrics } from '../delivery/ports.js';
import { type PeriodicRuns, Reconciler } from '../delivery/reconciler.js';
import type { JobService } from '../jobs/job-service.js';
import { SlackDeliverySender } from '../slack/delivery-sender.js';
import type { OwedEdits } from '../slack/owed-edits.js';
import { tellRefused } from '../slack/refused-notice.js';
import type { SlackGateway } from '../slack/slack-gateway.js';
import { TokenRejections } from '../slack/token-rejections.js';
import type { AdapterSet } from '../state/adapters.js';

/** How often each replica looks for owed deliveries nobody holds (a lease lapsed, a retry due). */
const DELIVERY_RECONCILE_MS = 1_000;
/** How often each replica looks for watched jobs without a pending poll (one store read per watched job). */
const WATCH_RECONCILE_MS = 5_000;

/**
 * The one delivery path: everything the bot owes Slack is recorded in the outbox, then attempted under a
 * lease renewed while the attempt runs and right before each call. A call that got no answer may still land
 * for twice the timeout after it (the settle time): look-ups, hand-backs and the sweep wait that long, and
 * a lapsed lease is taken over only once the last call under it can no longer land (`deliveryTimingsFor`).
 */
export function wireDeliveries(input: {
  config: Config;
  adapters: Pick<AdapterSet, 'deliveryStore'>;
  gateway: SlackGateway;
  logger: Logger;
  metrics: DeliveryMetrics;
  /** Changes owed to shared messages later (a mute's end), applied by the shared messages once wired. */
  edits?: OwedEdits;
  /** The outbox's time (tests); absent: the system's. */
  now?: (() => number) | undefined;
}): Deliveries {
  let deliveries: Deliveries | undefined;
  const told = (delivery: Delivery, code: string) =>
    deliveries ? tellRefused(deliveries)(delivery, code) : Promise.resolve();
  deliveries = new Deliveries({
    store: input.adapters.deliveryStore,
    sender: new SlackDeliverySender(
      input.gateway,
      input.config.slack.timeoutMs,
      new TokenRejections({
        logger: input.logger.child({ component: 'delivery' }),
        tenant: input.config.oauth !== undefined,
      }),
      input.edits,
    ),
    logger: input.logger.child({ component: 'delivery' }),
    ...deliveryTimingsFor(input.config.slack.timeoutMs),
    ...(input.now ? { now: input.now } : {}),
    metrics: input.metrics,
    onRefused: told,
  });
  return deliveries;
}

/**
 * Every replica, leader-free: owed deliveries nobody holds, watched jobs without a pending poll, followed
 * PRs without a pending read (and wake-ups a stopping replica recorded). Start-up is one `runOnce`. In
 * single-workspace mode (and OAuth mode in memory) each task runs on its period; in OAuth mode on Redis none
 * has a period: the due index names the tenants with such work and the replica that claims one runs them all.
 */
export function wireReconciler(input: {
  deliveries: Pick<Deliveries, 'reconcile'>;
  jobs: Pick<JobService, 'reconcileWatching' | 'takeOverStarts'>;
  pulls: { reconcile(): Promise<number> };
  logger: Logger;
  /** OAuth mode: the replica's one timer (and its due index, for the indexed tasks). */
  periodic?: PeriodicRuns | undefined;
}): Reconciler {
  return new Reconciler(
    [
      {
        ...{ name: 'deliveries', everyMs: DELIVERY_RECONCILE_MS, indexed: true },
        run: () => input.deliveries.reconcile(),
      },
      // OAuth mode on Redis: a watched job or a followed PR keeps its tenant in the due index (issue 43).
      {
        ...{ name: 'watched-jobs', everyMs: WATCH_RECONCILE_MS, indexed: true },
        run: () => input.jobs.reconcileWatching(),
      },
      // Job starts a stopping replica handed over: a person is waiting for the card, so checked often.
      {
        ...{ name: 'handed-over-starts', everyMs: DELIVERY_RECONCILE_MS, indexed: true },
        run: () => input.jobs.takeOverStarts(),
      },
      {
        ...{ name: 'followed-pull-requests', everyMs: WATCH_RECONCILE_MS, indexed: true },
        run: () => input.pulls.reconcile(),
      },
    ],
    input.logger.child({ component: 'reconciler' }),
    input.periodic,
  );
}
