import { describeError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import type { PageEvidence, SearchEvidence } from '../insights/health/evidence.js';
import { encodeEvidenceRef } from '../insights/health/evidence-ref.js';
import type { HealthEvidence } from '../insights/health/health-evidence.js';
import type { ThisWeek } from '../insights/weekly/this-week.js';
import type { JobStore } from '../jobs/ports.js';
import { runningFixOf } from './health-fix-claims.js';
import type { HomeThisWeek } from './messages/home-this-week.js';

export interface HomeThisWeekParts {
  thisWeek: Pick<ThisWeek, 'cached' | 'fill'>;
  /** Every channel's running jobs: a gap some job is fixing shows that job instead of Fix. */
  store: Pick<JobStore, 'listWatched'>;
  /** Where Fix's evidence waits for the click (absent: the button carries the evidence itself). */
  evidence?: Pick<HealthEvidence, 'save'>;
  /** OAuth mode: false until a docs project is connected (no section then: there is nothing to read). */
  isSetUp?: () => boolean;
  logger: Logger;
}

/**
 * Home's "This week in your docs" from the analytics cache; with nothing cached, a budgeted read in the
 * background for the next open. A failed read of the store leaves the section out, never Home.
 */
export function homeThisWeekSource(p: HomeThisWeekParts): () => Promise<HomeThisWeek | undefined> {
  // The last gap's evidence id: every publish of the same gap (an open publishes twice) reuses one record.
  let saved: { gap: string; id: string } | undefined;
  const fixValueOf = async (gap: SearchEvidence | PageEvidence): Promise<string> => {
    if (!p.evidence) return encodeEvidenceRef(gap);
    const key = JSON.stringify(gap);
    if (saved?.gap !== key) saved = { gap: key, id: await p.evidence.save(gap) };
    return saved.id;
  };
  return async () => {
    if (p.isSetUp && !p.isSetUp()) return undefined;
    try {
      const facts = await p.thisWeek.cached();
      if (!facts.views && !facts.health) return { filling: await p.thisWeek.fill() };
      const gap = facts.health?.gap;
      // Health read and no gap: "no gaps to fix"; health not read: the section says how to get it.
      if (!gap)
        return { ...(facts.views ? { views: facts.views } : {}), ...(facts.health ? { health: {} } : {}) };
      const [value, watched] = await Promise.all([fixValueOf(gap), p.store.listWatched()]);
      const running = runningFixOf(watched, gap);
      return { ...facts, health: { gap: { evidence: gap, value, ...(running ? { running } : {}) } } };
    } catch (error) {
      p.logger.warn({ error: describeError(error) }, "Home: could not read this week's summary");
      return undefined;
    }
  };
}
