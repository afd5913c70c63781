import type { FakeDocsRequest } from './fake-docs-request.js';

/**
 * The four analytics endpoints behind `/docs-health`, as analytics.openapi.json describes them: searches
 * (cursor, `limit` 1–100, ordered by hits), feedback by page (no cursor, `limit` 1–100, default 10,
 * `hasMore`), feedback entries (cursor, 1–100) and assistant conversations (ULID cursor, 1–1000). FakeDocs
 * delegates to it and validates every answer against the spec.
 */

export interface FakeSearch {
  searchQuery: string;
  hits: number;
  ctr: number;
  topClickedPage: string | null;
  lastSearchedAt: string;
}
export interface FakePageFeedback {
  path: string;
  thumbsUp: number;
  thumbsDown: number;
  code: number;
  total: number;
}
export interface FakeFeedback {
  id: string;
  path: string;
  comment: string | null;
  createdAt: string | null;
  source: 'code_snippet' | 'contextual' | 'agent' | 'thumbs_only';
  status: 'pending' | 'in_progress' | 'resolved' | 'dismissed';
  helpful: boolean;
  contact: string | null;
}
export interface FakeConversation {
  id: string;
  timestamp: string;
  query: string;
  response: string;
  responseType?: 'answer' | 'clarifying_question';
  sources: Array<{ title: string; url: string }>;
  resolutionStatus: 'answered' | 'unanswered';
  queryCategory: string | null;
  pageUrl: string | null;
}

export interface HealthData {
  searches: FakeSearch[];
  pages: FakePageFeedback[];
  feedback: FakeFeedback[];
  conversations: FakeConversation[];
}

type Answer = (status: number, body: unknown) => void;
const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/;

export const emptyHealthData = (): HealthData => ({
  searches: [],
  pages: [],
  feedback: [],
  conversations: [],
});

export class FakeDocsHealth {
  /** Rows per range key `${dateFrom}..${dateTo}`; `defaults` for any other range. */
  readonly byRange = new Map<string, HealthData>();
  defaults: HealthData = emptyHealthData();
  /** Spec-allowed (or deliberately broken) rewrites of a body before it is validated and sent. */
  readonly reshape: {
    [K in 'searches' | 'by-page' | 'feedback' | 'assistant']?: (body: unknown) => unknown;
  } = {};

  /** Answers a health endpoint and returns true, or returns false for any other path. */
  route(r: FakeDocsRequest, knows: (projectId: string) => boolean, answer: Answer): boolean {
    const match = /^\/v1\/analytics\/([^/]+)\/(searches|feedback\/by-page|feedback|assistant)$/.exec(r.path);
    if (!match || r.method !== 'GET') return false;
    if (!knows(match[1]!)) {
      answer(404, { error: 'Project not found' });
      return true;
    }
    const endpoint = match[2] as 'searches' | 'feedback/by-page' | 'feedback' | 'assistant';
    const spec = {
      searches: [100, 50],
      'feedback/by-page': [100, 10],
      feedback: [100, 50],
      assistant: [1000, 100],
    };
    const [max, fallback] = spec[endpoint] as [number, number];
    const limit = r.query.has('limit') ? Number(r.query.get('limit')) : fallback;
    if (!Number.isInteger(limit) || limit < 1 || limit > max)
      return invalid(answer, `limit must be between 1 and ${max}`);
    const dateFrom = r.query.get('dateFrom') ?? '';
    const dateTo = r.query.get('dateTo') ?? '';
    const isDate = (value: string) => DATE.test(value) && !Number.isNaN(Date.parse(value));
    if ((dateFrom && !isDate(dateFrom)) || (dateTo && !isDate(dateTo)))
      return invalid(answer, 'dates must be YYYY-MM-DD or ISO 8601');
    const data = this.byRange.get(`${dateFrom}..${dateTo}`) ?? this.defaults;
    const cursor = r.query.get('cursor') ?? undefined;
    const send = (key: keyof FakeDocsHealth['reshape'], body: unknown) => {
      const reshape = this.reshape[key];
      answer(200, reshape ? reshape(body) : body);
      return true;
    };

    if (endpoint === 'feedback/by-page') {
      const rows = [...data.pages].sort((a, b) => b.total - a.total);
      return send('by-page', { feedback: rows.slice(0, limit), hasMore: rows.length > limit });
    }
    if (endpoint === 'assistant') {
      if (cursor !== undefined && !ULID.test(cursor)) return invalid(answer, 'cursor must be a ULID');
      // The cursor is the last conversation's id (a ULID): the next page starts after it.
      const rows = data.conversations;
      const start = cursor === undefined ? 0 : rows.findIndex((c) => c.id === cursor) + 1;
      const slice = rows.slice(start, start + limit);
      const hasMore = start + limit < rows.length;
      return send('assistant', {
        conversations: slice,
        nextCursor: hasMore ? (slice.at(-1)?.id ?? null) : null,
        hasMore,
      });
    }
    const offset = cursor === undefined ? 0 : decodeCursor(cursor);
    if (offset === undefined) return invalid(answer, 'cursor is invalid');
    if (endpoint === 'searches') {
      const rows = [...data.searches].sort((a, b) => b.hits - a.hits);
      const hasMore = offset + limit < rows.length;
      return send('searches', {
        searches: rows.slice(offset, offset + limit),
        totalSearches: Math.round(rows.reduce((sum, row) => sum + row.hits, 0)),
        nextCursor: hasMore ? encodeCursor(offset + limit) : null,
      });
    }
    const source = r.query.get('source');
    const rows = data.feedback.filter((f) => !source || f.source === source);
    const hasMore = offset + limit < rows.length;
    return send('feedback', {
      feedback: rows.slice(offset, offset + limit),
      nextCursor: hasMore ? encodeCursor(offset + limit) : null,
      hasMore,
    });
  }
}

function invalid(answer: Answer, message: string): true {
  answer(400, { error: 'Invalid query parameters', details: [{ message }] });
  return true;
}

const encodeCursor = (offset: number) => Buffer.from(`o:${offset}`).toString('base64url');
function decodeCursor(cursor: string): number | undefined {
  const match = /^o:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return match ? Number(match[1]) : undefined;
}

/** A ULID-shaped id (Crockford base32, 26 characters) whose order follows `n`. */
export function fakeUlid(n: number): string {
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  let text = '';
  let rest = n;
  for (let i = 0; i < 10; i += 1) {
    text = alphabet[rest % 32] + text;
    rest = Math.floor(rest / 32);
  }
  return `01J0000000000000${text}`;
}

/** `count` searches, every third one finding nothing (ctr 0, no clicked page). */
export function makeSearches(count: number, seed = 7): FakeSearch[] {
  return Array.from({ length: count }, (_, i) => ({
    searchQuery: `query ${i} ${seed}`,
    hits: ((i * 37 + seed) % 500) + 1,
    ctr: i % 3 === 0 ? 0 : 0.25,
    topClickedPage: i % 3 === 0 ? null : `/guides/page-${i}`,
    lastSearchedAt: '2025-03-05T10:00:00.000Z',
  }));
}

export function makeFeedback(path: string, comments: string[], startId = 0): FakeFeedback[] {
  return comments.map((comment, i) => ({
    id: `fb_${startId + i}`,
    path,
    comment,
    createdAt: new Date(Date.UTC(2025, 2, 4, 0, i)).toISOString(),
    source: 'contextual',
    status: 'pending',
    helpful: false,
    contact: null,
  }));
}

export function makeConversation(n: number, query: string, unanswered = true): FakeConversation {
  return {
    id: fakeUlid(n),
    timestamp: new Date(Date.UTC(2025, 2, 4, 0, 0, n)).toISOString(),
    query,
    response: unanswered ? 'I could not find that in the docs.' : 'Here is how.',
    sources: [],
    resolutionStatus: unanswered ? 'unanswered' : 'answered',
    queryCategory: null,
    pageUrl: null,
  };
}

/** How many rows a project's health endpoints hold for a range. */
export interface HealthVolumes {
  searches: number;
  pages: number;
  feedback: number;
  conversations: number;
}

/** A project of the given size: a third of searches and conversations unanswered, every fourth page flagged. */
export function makeHealthData(v: HealthVolumes): HealthData {
  const pages = Array.from({ length: v.pages }, (_, i) => {
    const thumbsDown = i % 4 === 0 ? (i % 7) + 1 : 0;
    const thumbsUp = (i * 13) % 40;
    return { path: `/guides/page-${i}`, thumbsUp, thumbsDown, code: 0, total: thumbsUp + thumbsDown };
  });
  const feedback = Array.from({ length: v.feedback }, (_, i) =>
    makeFeedback(`/guides/page-${(i * 4) % Math.max(v.pages, 1)}`, [`Comment ${i}: this step is unclear`], i),
  ).flat();
  const conversations = Array.from({ length: v.conversations }, (_, i) =>
    makeConversation(i, `How do I configure feature ${i % 200}?`, i % 3 === 0),
  );
  return { searches: makeSearches(v.searches), pages, feedback, conversations };
}
