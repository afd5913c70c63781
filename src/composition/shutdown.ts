import type { Logger } from '../common/logger.js';
import type { StartHandovers } from '../jobs/ports.js';
import { within } from './app-steps.js';
import { SHUTDOWN_STEP_MS, UNTIL_STATE_CLOSES_MS } from './shutdown-budget.js';

/** What `stop()` closes, in the order below. */
export interface ShutdownParts {
  slack: { drain(timeoutMs: number): Promise<number>; close(): Promise<void> };
  reconciler: { stop(): Promise<void> };
  weekly: { stop(): Promise<void> };
  /** The docs-health alert check (its scheduler). */
  alerts: { stop(): Promise<void> };
  pollQueue: { close(): Promise<void> };
  impact: { stop(): Promise<void> };
  pulls: { stop(): Promise<void> };
  deliveries: { idle(): Promise<void>; handBack(): Promise<number> };
  assistant: { close(): void };
  home: { close(): Promise<void> };
  adapters: { close(): Promise<void> };
  docsApi: { close(): Promise<void> };
  logger: Logger;
}

/**
 * What job starts need to survive a stop: once `stopping`, a start not yet sent to the docs API is handed
 * to the other replicas (Redis mode; memory mode has none, so the stop waits for it as before).
 */
export function handOverWhenStopping(
  adapters: { startHandovers?: StartHandovers },
  stopping: () => boolean,
): { handovers?: StartHandovers; stopping: () => boolean } {
  return { ...(adapters.startHandovers ? { handovers: adapters.startHandovers } : {}), stopping };
}

/**
 * The graceful stop, each step bounded by its budget (SHUTDOWN_STEP_MS): nothing new is taken, what was
 * acknowledged finishes, every queue and lease is handed back for the replicas that stay (or the next
 * start), and only then the connections close.
 */
export async function shutDown(p: ShutdownParts): Promise<void> {
  const { logger } = p;
  const started = Date.now();
  // 1. No new Slack requests: the process closed its front door (app.ts) before stopping its scopes.
  // 2. Finish what was already acknowledged (cards, job creations, follow-ups, buttons). The Slack client
  //    and its posting queues stay open until every step below is done.
  let unfinished = await p.slack.drain(SHUTDOWN_STEP_MS.slackDrain);
  if (unfinished > 0)
    logger.warn({ unfinished }, 'shutdown: acknowledged Slack work still running after its budget');
  // 3. Take no more work: no reconciling, no weekly firing; running polls finish and re-delay themselves
  //    (Redis keeps them, and any wake-up recorded meanwhile, for the replicas that stay).
  await Promise.all([
    within(p.reconciler.stop(), SHUTDOWN_STEP_MS.reconciler, 'stopping the reconciler', logger),
    within(p.weekly.stop(), SHUTDOWN_STEP_MS.weeklyScheduler, 'stopping weekly reports', logger),
    within(p.alerts.stop(), SHUTDOWN_STEP_MS.weeklyScheduler, 'stopping docs-health alerts', logger),
    within(p.pollQueue.close(), SHUTDOWN_STEP_MS.pollQueue, 'closing the poll queue', logger),
    within(p.impact.stop(), SHUTDOWN_STEP_MS.impactQueue, 'closing the impact queue', logger),
    within(p.pulls.stop(), SHUTDOWN_STEP_MS.pullRequestQueue, 'closing the pull request queue', logger),
  ]);
  // 4. Attempts under way (the work above owed card states and replies) get a moment to land; then every
  //    lease is handed back: the outbox keeps what is owed and another replica (or the next start)
  //    delivers it, looking first where an attempt may have landed.
  await within(p.deliveries.idle(), SHUTDOWN_STEP_MS.deliveryFlush, 'sending owed messages', logger);
  let handedBack = 0;
  const handBack = p.deliveries.handBack().then((count) => {
    handedBack = count;
  });
  await within(handBack, SHUTDOWN_STEP_MS.deliveryHandBack, 'handing deliveries back', logger);
  p.assistant.close();
  await within(p.home.close(), SHUTDOWN_STEP_MS.homeRefreshes, 'finishing Home refreshes', logger);
  // Acknowledged work that outlasted step 2 (a slow create) gets the time steps 2-4 left unused before the
  // state closes: the job created upstream is recorded and watched (a wake-up for the replicas that stay)
  // instead of exiting with this process while its card says "Starting" forever.
  if (unfinished > 0)
    unfinished = await p.slack.drain(Math.max(0, started + UNTIL_STATE_CLOSES_MS - Date.now()));
  // 5. Only now Slack's client (calls still waiting for a slot fail as not sent and stay owed), then the
  //    state store and the docs API pool.
  await within(p.slack.close(), SHUTDOWN_STEP_MS.slackClient, 'closing the Slack client', logger);
  await within(
    p.adapters.close(),
    SHUTDOWN_STEP_MS.stateConnections,
    'closing the state connections',
    logger,
  );
  await within(p.docsApi.close(), SHUTDOWN_STEP_MS.docsApiPool, 'closing the docs API pool', logger);
  if (handedBack) logger.info({ deliveries: handedBack }, 'shutdown: deliveries handed back');
  logger.info(
    { ms: Date.now() - started, unfinishedSlackWork: unfinished },
    unfinished > 0
      ? `docs-agent stopped; ${unfinished} acknowledged Slack task(s) were still running and were dropped`
      : 'docs-agent stopped',
  );
}
