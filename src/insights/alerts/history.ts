import { describeError, errorCode } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { AlertStore } from '../ports.js';
import { PAST_DAY_CALLS, readPastDay, type SignalReadOptions, TODAY_CALLS } from './read-signals.js';
import { BASELINE_DAYS } from './rules.js';
import type { DaySignals } from './signals.js';

/** Stored days outlive the baseline a little (a late check still finds its 28 days). */
export const DAY_KEEP_MS = 35 * 24 * 60 * 60 * 1000;
/** Past days read per check at most: a cold start fills its 28 days over a few intervals. */
export const BACKFILL_DAYS_PER_CHECK = 7;
/** Budget units a backfill leaves for people's reports (and this interval's read of today). */
export const BACKFILL_RESERVE = 20 + TODAY_CALLS;

const DAY_MS = 86_400_000;

/** The UTC days of the baseline before `tickMs`'s day, newest first. */
export function baselineDays(tickMs: number): string[] {
  const today = Date.parse(`${new Date(tickMs).toISOString().slice(0, 10)}T00:00:00Z`);
  return Array.from({ length: BASELINE_DAYS }, (_, i) =>
    new Date(today - (i + 1) * DAY_MS).toISOString().slice(0, 10),
  );
}

/**
 * The project's stored days of the baseline. Missing ones (a cold start, a day not read yet) are read and
 * stored, newest first, a few per check and only while the budget keeps its reserve: a past day never
 * changes, so each is read once per project (shared by replicas in Redis mode).
 */
export async function collectHistory(
  read: SignalReadOptions,
  store: AlertStore,
  tickMs: number,
  logger: Logger,
): Promise<DaySignals[]> {
  const days = baselineDays(tickMs);
  const stored = await Promise.all(days.map((day) => store.day(read.projectId, day)));
  let budgetDays = BACKFILL_DAYS_PER_CHECK;
  for (let i = 0; i < days.length && budgetDays > 0; i += 1) {
    if (stored[i]) continue;
    if ((await read.source.budget.remaining()) < PAST_DAY_CALLS + BACKFILL_RESERVE) break;
    budgetDays -= 1;
    try {
      const signals = await readPastDay(read, days[i]!);
      await store.putDay(read.projectId, signals, DAY_KEEP_MS);
      stored[i] = signals;
    } catch (error) {
      logger.warn(
        { projectId: read.projectId, day: days[i], code: errorCode(error), error: describeError(error) },
        'docs-health alerts: could not read a baseline day; trying again next interval',
      );
      break;
    }
  }
  return stored.filter((day): day is DaySignals => day !== undefined);
}
