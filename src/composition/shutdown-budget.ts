/**
 * Every shutdown step's time budget in one table, beside the forced exit they must fit in: `stop()` waits
 * for each step at most its budget, and main.ts exits the process at `FORCED_EXIT_MS` whatever is still
 * running. Steps run one after another except the groups in `SHUTDOWN_PARALLEL`; the worst case must stay
 * below the forced exit with room for the last log lines (the unit test checks it), or the forced exit
 * cuts off the closing of the state store and the docs API pool.
 */
export const FORCED_EXIT_MS = 10_000;

export const SHUTDOWN_STEP_MS = {
  /** The front door stops accepting (the HTTP server, or the socket disconnects): the process's. */
  slackReceiver: 1_000,
  /** A start still under way ends (its steps see the stop and take no more). */
  startUp: 200,
  /** Acknowledged Slack work (cards, job creations, follow-ups, buttons) finishes. */
  slackDrain: 4_000,
  /** The reconciler's runs under way end (it takes no more work). */
  reconciler: 500,
  weeklyScheduler: 300,
  /** Running polls finish and re-delay themselves in the queue. */
  pollQueue: 1_500,
  impactQueue: 1_000,
  pullRequestQueue: 1_000,
  /** Owed messages already on their way (card states, replies the steps above owed) land. */
  deliveryFlush: 600,
  /** Every delivery lease this replica holds is given back for the others (or the next start). */
  deliveryHandBack: 500,
  homeRefreshes: 300,
  slackClient: 300,
  stateConnections: 300,
  docsApiPool: 300,
  /** The process's upstream pools (every scope's docs API calls), after every scope stopped. */
  upstreamPools: 200,
  metricsPort: 200,
} as const;

export type ShutdownStep = keyof typeof SHUTDOWN_STEP_MS;

/** Steps awaited together: a group costs its longest step. */
export const SHUTDOWN_PARALLEL: readonly (readonly ShutdownStep[])[] = [
  ['reconciler', 'weeklyScheduler', 'pollQueue', 'impactQueue', 'pullRequestQueue'],
];

/** Time left after the worst case for logging the outcome and exiting. */
export const SHUTDOWN_MARGIN_MS = 500;

/** The longest `stop()` can take if every step uses its whole budget. */
export function shutdownWorstCaseMs(): number {
  const grouped = new Set(SHUTDOWN_PARALLEL.flat());
  let total = 0;
  for (const [step, ms] of Object.entries(SHUTDOWN_STEP_MS))
    if (!grouped.has(step as ShutdownStep)) total += ms;
  for (const group of SHUTDOWN_PARALLEL) total += Math.max(...group.map((step) => SHUTDOWN_STEP_MS[step]));
  return total;
}

/**
 * Steps 1 to 4 (receiver to Home, the parallel group counted once): acknowledged work may run this long
 * before the state closes; a second drain uses what those steps left unused, so the worst case is unchanged.
 */
export const UNTIL_STATE_CLOSES_MS = (() => {
  const closing: ShutdownStep[] = [
    'slackClient',
    'stateConnections',
    'docsApiPool',
    'startUp',
    'upstreamPools',
    'metricsPort',
  ];
  return shutdownWorstCaseMs() - closing.reduce((sum, step) => sum + SHUTDOWN_STEP_MS[step], 0);
})();
