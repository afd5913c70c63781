import type { FakeDocs } from './fake-docs.js';
import { type FakeSearch, type HealthData, makeConversation } from './fake-docs-health.js';
import type { ViewRow } from './fake-docs-views.js';
import { seededRandom } from './seeded-random.js';

/**
 * A fake analytics feed of Poisson noise for docs-health alerts: every signal has a daily rate; each past
 * day (UTC, as the bot asks for it: `YYYY-MM-DD..YYYY-MM-DD`) and each draw of "today" (any other range) is
 * an independent Poisson draw around those rates, seeded so a run repeats.
 */
export interface FeedRates {
  /** Searches per day for terms that find nothing. */
  searches: Record<string, number>;
  /** 👎 per day per page. */
  thumbsDown: Record<string, number>;
  /** Unanswered askings per day per question. */
  questions: Record<string, number>;
  /** Views per day per page. */
  views: Record<string, number>;
}

export const NOISE_RATES: FeedRates = {
  searches: {
    'api keys': 6,
    'rate limits': 3,
    'sso setup': 1.5,
    'webhook retries': 0.3,
    pagination: 0.8,
    'custom domains': 2.2,
    'delete account': 0.1,
    'oauth scopes': 4.5,
    'terraform provider': 0.5,
    'ip allowlist': 1,
  },
  thumbsDown: {
    '/quickstart': 2,
    '/guides/webhooks': 0.7,
    '/api/auth': 1.2,
    '/guides/sso': 0.3,
    '/changelog': 0.1,
  },
  questions: { 'How do I rotate keys?': 1.5, 'Can I export data to S3?': 0.6, 'What is the SLA?': 0.2 },
  views: {
    '/quickstart': 900,
    '/guides/webhooks': 400,
    '/api/auth': 250,
    '/guides/sso': 120,
    '/changelog': 80,
  },
};

/** Knuth's method below 30, a rounded normal approximation above (views). */
export function poissonDraw(rate: number, random: () => number): number {
  if (rate <= 0) return 0;
  if (rate > 30) {
    const u = Math.max(random(), 1e-12);
    const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
    return Math.max(0, Math.round(rate + Math.sqrt(rate) * z));
  }
  const limit = Math.exp(-rate);
  let k = 0;
  let p = random();
  while (p > limit) {
    k += 1;
    p *= random();
  }
  return k;
}

export class AlertFeed {
  private readonly random: () => number;
  private conversationId = 1;
  /** Extra counts added to today's draws (a spike). */
  readonly spike: Partial<Record<'searches' | 'thumbsDown' | 'questions', Record<string, number>>> = {};

  constructor(
    private readonly docs: FakeDocs,
    private readonly rates: FeedRates = NOISE_RATES,
    seed = 30,
  ) {
    this.random = seededRandom(seed);
  }

  /** `days` past UTC days before `nowMs` (and `nowMs`'s own day, for a test crossing midnight). */
  installHistory(nowMs: number, days = 29): void {
    const today = Date.parse(`${new Date(nowMs).toISOString().slice(0, 10)}T00:00:00Z`);
    for (let i = -1; i <= days; i += 1) {
      const from = new Date(today - i * 86_400_000).toISOString().slice(0, 10);
      const to = new Date(today - (i - 1) * 86_400_000).toISOString().slice(0, 10);
      const day = this.draw(false);
      this.docs.health.byRange.set(`${from}..${to}`, day.health);
      this.docs.viewsByRange.set(`${from}..${to}`, day.views);
    }
  }

  /** A new draw of "today" (any range not installed as a past day: today so far, the last 24 hours). */
  drawToday(): void {
    const day = this.draw(true);
    this.docs.health.defaults = day.health;
    this.docs.defaultViews = day.views;
  }

  private draw(withSpike: boolean): { health: HealthData; views: ViewRow[] } {
    const count = (rates: Record<string, number>, extra: Record<string, number> | undefined) =>
      Object.entries(rates).map(
        ([key, rate]) =>
          [key, poissonDraw(rate, this.random) + (withSpike ? (extra?.[key] ?? 0) : 0)] as const,
      );
    const searches: FakeSearch[] = count(this.rates.searches, this.spike.searches)
      .filter(([, hits]) => hits > 0)
      .map(([searchQuery, hits]) => ({
        searchQuery,
        hits,
        ctr: 0,
        topClickedPage: null,
        lastSearchedAt: '2026-01-01T00:00:00.000Z',
      }));
    const pages = count(this.rates.thumbsDown, this.spike.thumbsDown)
      .filter(([, down]) => down > 0)
      .map(([path, thumbsDown]) => ({ path, thumbsUp: 3, thumbsDown, code: 0, total: thumbsDown + 3 }));
    const conversations = count(this.rates.questions, this.spike.questions).flatMap(([query, asked]) =>
      Array.from({ length: asked }, () => makeConversation(this.conversationId++, query, true)),
    );
    conversations.sort((a, b) => (a.id < b.id ? -1 : 1));
    const views: ViewRow[] = Object.entries(this.rates.views).map(([path, rate]) => {
      const total = poissonDraw(rate, this.random);
      return { path, human: total, ai: 0, total };
    });
    return { health: { searches, pages, feedback: [], conversations }, views };
  }
}
