import { cleanUntrusted } from '../../common/untrusted-text.js';
import { addDays } from '../ranges/dates.js';
import { type Evidence, evidenceKey, normalisePath } from './evidence.js';
import type { HealthWindow } from './ports.js';
import { openQuestions } from './report.js';

export type ImpactMetricName = 'hits' | 'ctr' | 'thumbsDown' | 'thumbsUp' | 'pageViews' | 'asked';

export interface ImpactMetric {
  name: ImpactMetricName;
  before: number;
  after: number;
  delta: number;
  /** Relative change; undefined when `before` is 0 (nothing to compare with). */
  change: number | undefined;
  /** Whether the move is good news (fewer 👎, more click-through…); undefined for no move or no direction. */
  improved: boolean | undefined;
}

export interface ImpactModel {
  evidence: Evidence;
  before: { from: string; toExclusive: string };
  after: { from: string; toExclusive: string };
  metrics: ImpactMetric[];
}

/** Which way is better, per metric (page views have no direction: more readers is not a fix). */
const BETTER: Record<ImpactMetricName, 'up' | 'down' | undefined> = {
  hits: undefined,
  ctr: 'up',
  thumbsDown: 'down',
  thumbsUp: 'up',
  pageViews: undefined,
  asked: 'down',
};

function metric(name: ImpactMetricName, before: number, after: number): ImpactMetric {
  const delta = after - before;
  const better = BETTER[name];
  return {
    name,
    before,
    after,
    delta,
    change: before === 0 ? undefined : delta / before,
    improved: better === undefined || delta === 0 ? undefined : delta > 0 === (better === 'up'),
  };
}

/**
 * The same evidence measured in the window after the pull request and in as long a window before it.
 * Page views come from the page-views endpoint, so the caller passes them for a page when it has them.
 */
export function compareImpact(
  evidence: Evidence,
  before: HealthWindow,
  after: HealthWindow,
  pageViews?: { before: number; after: number },
): ImpactModel {
  const measure = (w: HealthWindow) => measureIn(evidence, w);
  const b = measure(before);
  const a = measure(after);
  const metrics = (Object.keys(b) as ImpactMetricName[]).map((name) =>
    metric(name, b[name] ?? 0, a[name] ?? 0),
  );
  if (evidence.kind === 'page' && pageViews)
    metrics.push(metric('pageViews', pageViews.before, pageViews.after));
  return {
    evidence,
    before: { from: before.dateFrom, toExclusive: before.dateTo },
    after: { from: after.dateFrom, toExclusive: after.dateTo },
    metrics,
  };
}

function measureIn(evidence: Evidence, w: HealthWindow): Partial<Record<ImpactMetricName, number>> {
  const range = { from: w.dateFrom, toExclusive: w.dateTo };
  const key = evidenceKey(evidence);
  switch (evidence.kind) {
    case 'search': {
      // Measured over all searches, not only failing ones: after a fix the query should be found.
      const row = w.searches.find((s) => cleanUntrusted(s.searchQuery).text === key);
      return { hits: row?.hits ?? 0, ctr: row?.ctr ?? 0 };
    }
    case 'page': {
      const rows = w.pages.filter((p) => normalisePath(p.path) === key);
      const thumbsDown = rows.reduce((sum, p) => sum + p.thumbsDown, 0);
      const thumbsUp = rows.reduce((sum, p) => sum + p.thumbsUp, 0);
      return { thumbsDown, thumbsUp };
    }
    case 'question': {
      const found = openQuestions(w.conversations, range).find((q) => evidenceKey(q) === key);
      return { asked: found?.asked ?? 0 };
    }
  }
}

/** Analytics land late: the check waits this long after the last measured day has ended. */
export const IMPACT_SETTLE_MS = 2 * 60 * 60 * 1000;

export interface ImpactWindows {
  before: { from: string; toExclusive: string };
  after: { from: string; toExclusive: string };
  /** When both windows are over (and settled): the check is due then. */
  dueAt: number;
}

/**
 * The `days` full UTC days after the day the change went live (the merge, else the day the PR was seen),
 * and as many days before the day the PR was opened (`openedAt`, default the same day). Those days are in
 * neither window: they are partly before the fix and partly after (or the fix was waiting for review).
 */
export function impactWindows(liveAt: number, days: number, openedAt: number = liveAt): ImpactWindows {
  const day = (at: number) => new Date(at).toISOString().slice(0, 10);
  const afterFrom = addDays(day(liveAt), 1);
  const after = { from: afterFrom, toExclusive: addDays(afterFrom, days) };
  const openedDay = day(Math.min(openedAt, liveAt));
  const before = { from: addDays(openedDay, -days), toExclusive: openedDay };
  return { before, after, dueAt: Date.parse(`${after.toExclusive}T00:00:00Z`) + IMPACT_SETTLE_MS };
}
