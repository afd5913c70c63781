import { describeError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import type { StateBackend } from '../state/adapters.js';

/** The process exits this long after SIGTERM/SIGINT whatever is still running (main.ts). */
export const SHUTDOWN_DEADLINE_MS = 10_000;

/**
 * Each shutdown step's budget (app.ts `stop()`), run one after the other: their sum stays well below the
 * forced exit, so every step gets its turn (a unit test keeps it so).
 */
export const SHUTDOWN_BUDGET_MS = {
  receiver: 1_000,
  acknowledged: 3_000,
  queues: 1_500,
  flush: 1_000,
  handBack: 500,
  home: 300,
  slackClient: 300,
  state: 500,
  docsApi: 300,
  metrics: 200,
} as const;

/** Steps 1-4 (receiver to Home) together: acknowledged work may run this long before the state closes. */
export const UNTIL_STATE_CLOSES_MS =
  SHUTDOWN_BUDGET_MS.receiver +
  SHUTDOWN_BUDGET_MS.acknowledged +
  SHUTDOWN_BUDGET_MS.queues +
  SHUTDOWN_BUDGET_MS.flush +
  SHUTDOWN_BUDGET_MS.handBack +
  SHUTDOWN_BUDGET_MS.home;

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
