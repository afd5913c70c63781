import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DocsApiError } from '../../src/common/docs-api-error.js';
import { InMemoryHourlyQuota } from '../../src/common/hourly-quota.js';
import { createLogger } from '../../src/common/logger.js';
import { AnalyticsBudgetError, AnalyticsSource } from '../../src/insights/analytics-source.js';
import { fetchHealthWindow } from '../../src/insights/health/fetch-health.js';
import { DocsApiClient } from '../../src/platform/docs-client.js';
import { createMemoryAnalyticsCache } from '../../src/state/keyv-analytics-cache.js';
import { docsClientFor } from '../support/docs-client-for.js';
import { FAKE_API_KEY, FAKE_PROJECT_ID, FakeDocs } from '../support/fake-docs.js';
import { fakeUlid, makeConversation, makeFeedback, makeSearches } from '../support/fake-docs-health.js';
import { listen } from '../support/http.js';
import { contractViolation } from '../support/openapi-contract.js';

const logs: string[] = [];
const logger = createLogger({
  level: 'warn',
  secrets: [],
  destination: { write: (l: string) => logs.push(l) },
});
const window = { dateFrom: '2025-03-03', dateTo: '2025-03-10' };
let docs: FakeDocs;
let api: DocsApiClient;

beforeEach(async () => {
  docs = await FakeDocs.start();
  api = docsClientFor(docs, logger);
});
afterEach(async () => {
  await api.close();
  await docs.close();
});

/** The health reads through a fresh analytics source (its own cache) on `budget`. */
const read = (maxPages: number, budget: InMemoryHourlyQuota) => ({
  maxPages,
  projectId: FAKE_PROJECT_ID,
  source: new AnalyticsSource({
    cache: createMemoryAnalyticsCache(logger),
    budget,
    logger,
    cacheTtlMs: 60_000,
  }),
});

const calls = (endpoint: RegExp) => docs.requestsTo('GET', endpoint);

function seed() {
  docs.health.defaults = {
    searches: makeSearches(250),
    pages: Array.from({ length: 120 }, (_, i) => ({
      path: `/p/${i}`,
      thumbsUp: i,
      thumbsDown: i % 4,
      code: 0,
      total: 1000 - i,
    })),
    feedback: [
      ...makeFeedback('/p/1', ['Unclear', 'Wrong port'], 0),
      ...Array.from({ length: 150 }, (_, i) => makeFeedback(`/q/${i}`, ['x'], 100 + i)[0]!),
    ],
    conversations: Array.from({ length: 1500 }, (_, i) =>
      makeConversation(i, `question ${i % 40}`, i % 2 === 0),
    ),
  };
  docs.health.defaults.feedback[0]!.contact = 'reader@example.com';
}

describe('health endpoints through the client and the fake platform', () => {
  it('reads every endpoint at its maximum page size, follows cursors and answers within the spec', async () => {
    seed();
    const budget = new InMemoryHourlyQuota(100);
    const fetched = await fetchHealthWindow(api, window, read(10, budget));

    expect(fetched.searches).toHaveLength(250);
    expect(fetched.totalSearches).toBe(makeSearches(250).reduce((s, r) => s + r.hits, 0));
    expect(fetched.pages).toHaveLength(100);
    expect(fetched.partial).toEqual(['pages']);
    expect(fetched.feedback).toHaveLength(152);
    expect(fetched.conversations).toHaveLength(1500);
    // Never the reader's e-mail address: the schema drops `contact`.
    expect(JSON.stringify(fetched)).not.toContain('reader@example.com');

    const searches = calls(/\/searches$/);
    expect(searches.map((r) => r.query.get('limit'))).toEqual(['100', '100', '100']);
    expect(searches[0]!.query.has('cursor')).toBe(false);
    expect(searches[1]!.query.get('cursor')).toBeTruthy();
    expect(calls(/\/by-page$/).map((r) => r.query.get('limit'))).toEqual(['100']);
    expect(calls(/\/feedback$/).map((r) => r.query.get('limit'))).toEqual(['100', '100']);
    const assistant = calls(/\/assistant$/);
    expect(assistant.map((r) => r.query.get('limit'))).toEqual(['1000', '1000']);
    expect(assistant[1]!.query.get('cursor')).toBe(fakeUlid(999));
    expect(assistant[0]!.query.get('dateFrom')).toBe('2025-03-03');
    expect(assistant[0]!.query.get('dateTo')).toBe('2025-03-10');
    expect(fetched.requests).toBe(8);
    expect(await budget.remaining()).toBe(92);
  });

  it('reads a window again from the shared analytics cache: no request, no budget', async () => {
    seed();
    const budget = new InMemoryHourlyQuota(100);
    const options = read(10, budget);
    const first = await fetchHealthWindow(api, window, options);
    const requestsAfterFirst = docs.requests.length;
    const again = await fetchHealthWindow(api, window, options);
    expect(again).toEqual(first);
    expect(docs.requests).toHaveLength(requestsAfterFirst);
    expect(await budget.remaining()).toBe(92);
  });

  it('stops at the page cap and marks the endpoint partial', async () => {
    seed();
    const fetched = await fetchHealthWindow(api, window, read(2, new InMemoryHourlyQuota(100)));
    expect(fetched.searches).toHaveLength(200);
    expect(fetched.partial).toContain('searches');
    expect(calls(/\/searches$/)).toHaveLength(2);
  });

  it('stops when a server repeats the same page with a cursor (no budget burnt on copies)', async () => {
    seed();
    docs.health.reshape.searches = (body) => ({
      ...(body as object),
      nextCursor: Buffer.from('o:100').toString('base64url'),
    });
    docs.health.reshape.assistant = (body) => ({
      ...(body as object),
      nextCursor: fakeUlid(5),
      hasMore: true,
    });
    const fetched = await fetchHealthWindow(api, window, read(10, new InMemoryHourlyQuota(100)));
    // Page 1 (cursor-less), page 2 at the fixed cursor adds rows, page 3 hands the same cursor back.
    expect(calls(/\/searches$/)).toHaveLength(2);
    expect(calls(/\/assistant$/)).toHaveLength(2);
    expect(fetched.partial).toEqual(expect.arrayContaining(['searches', 'conversations']));
  });

  it('refuses up front when the budget cannot cover a report, saying when it can run', async () => {
    const budget = new InMemoryHourlyQuota(100);
    await budget.take(97);
    const error = await fetchHealthWindow(api, window, read(10, budget)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AnalyticsBudgetError);
    expect((error as AnalyticsBudgetError).retryAfterMs).toBeGreaterThan(0);
    expect(docs.requests).toHaveLength(0);
  });

  it('stops paging with the budget error when the hour runs out mid-report', async () => {
    seed();
    const budget = new InMemoryHourlyQuota(100);
    await budget.take(95);
    const error = await fetchHealthWindow(api, window, read(10, budget)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AnalyticsBudgetError);
    // 3 searches pages + by-page + 1 feedback page spent the 5 units; nothing beyond the budget was sent.
    expect(docs.requests).toHaveLength(5);
  });

  it('accepts what the spec allows: fractional counts, null clicked page, missing optional fields', async () => {
    docs.health.defaults.searches = [
      { searchQuery: 'sso', hits: 2.5, ctr: 0, topClickedPage: null, lastSearchedAt: '2025-03-04T00:00:00Z' },
    ];
    const page = await api.getSearches({ ...window, limit: 100 });
    expect(page.searches[0]).toMatchObject({ searchQuery: 'sso', hits: 2.5, topClickedPage: null });
    expect(page.nextCursor).toBeNull();
  });

  it('rejects a body it cannot work without and logs the field, never the value', async () => {
    // A raw server: the fake platform itself never answers outside the spec.
    const server = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ feedback: [{ path: '/secret-path', thumbsUp: 'many' }], hasMore: false }));
    });
    const raw = new DocsApiClient({
      baseUrl: server.url,
      apiKey: FAKE_API_KEY,
      projectId: 'p',
      timeoutMs: 2000,
      logger,
    });
    logs.length = 0;
    const error = await raw.getFeedbackByPage({ ...window, limit: 100 }).catch((e: unknown) => e);
    await raw.close();
    await server.close();
    expect((error as DocsApiError).code).toBe('bad_response');
    const logged = logs.join('');
    expect(logged).toContain('feedback.0.thumbsUp: expected number');
    expect(logged).toContain('feedback.0.thumbsDown: expected number');
    expect(logged).not.toContain('secret-path');
    expect(logged).not.toContain('many');
  });

  it('the fake platform answers out-of-range limits and bad cursors with the spec error body', async () => {
    const bad = [
      `/v1/analytics/${FAKE_PROJECT_ID}/searches?limit=101`,
      `/v1/analytics/${FAKE_PROJECT_ID}/feedback/by-page?limit=0`,
      `/v1/analytics/${FAKE_PROJECT_ID}/assistant?limit=1001`,
      `/v1/analytics/${FAKE_PROJECT_ID}/assistant?cursor=not-a-ulid`,
      `/v1/analytics/${FAKE_PROJECT_ID}/feedback?cursor=zzz`,
    ];
    for (const path of bad) {
      const res = await fetch(`${docs.url}${path}`, { headers: { authorization: `Bearer ${FAKE_API_KEY}` } });
      expect(res.status, path).toBe(400);
      const body = (await res.json()) as { error: string; details: Array<{ message: string }> };
      expect(body.error).toBe('Invalid query parameters');
      expect(contractViolation('GET', path.split('?')[0]!, 400, body)).toBeUndefined();
    }
    const defaults = await fetch(`${docs.url}/v1/analytics/${FAKE_PROJECT_ID}/feedback/by-page`, {
      headers: { authorization: `Bearer ${FAKE_API_KEY}` },
    });
    expect(((await defaults.json()) as { feedback: unknown[] }).feedback).toHaveLength(0);
  });
});

describe('the fake platform stays within the spec', () => {
  it('validates seeded answers of all four endpoints and catches a drifted one', () => {
    const searches = { searches: makeSearches(3), totalSearches: 10, nextCursor: null };
    expect(contractViolation('GET', '/v1/analytics/p/searches', 200, searches)).toBeUndefined();
    const conv = { conversations: [makeConversation(1, 'q')], nextCursor: null, hasMore: false };
    expect(contractViolation('GET', '/v1/analytics/p/assistant', 200, conv)).toBeUndefined();
    const fb = { feedback: makeFeedback('/a', ['c']), nextCursor: null, hasMore: false };
    expect(contractViolation('GET', '/v1/analytics/p/feedback', 200, fb)).toBeUndefined();
    const drifted = { searches: [{ searchQuery: 'q', hits: '3' }], totalSearches: 1, nextCursor: null };
    expect(contractViolation('GET', '/v1/analytics/p/searches', 200, drifted)).toContain(
      'breaks the analytics spec',
    );
  });
});
