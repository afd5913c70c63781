/** The copy test's renders of alerts, impact checks, charts and link previews (see copy-renders.ts). */
import { demoHealth } from '../../demo/demo-data.js';
import { compareImpact } from '../../src/insights/health/impact.js';
import { evidenceOf } from '../../src/insights/page-snapshot/page-snapshot.js';
import { healthReport, JOB_ID, NOW, type Renders, USER } from './copy-fixtures.js';

const PR = 'https://github.com/acme/docs/pull/123';
const days = [
  '2026-11-14',
  '2026-11-15',
  '2026-11-16',
  '2026-11-17',
  '2026-11-18',
  '2026-11-19',
  '2026-11-20',
];
const buckets = days.map((from, i) => ({ from, toExclusive: days[i + 1] ?? '2026-11-21' }));
const counts = (base: number) => days.map((_, i) => base + ((i * 37) % 50));

const alert = (kind: 'search' | 'page' | 'question' | 'traffic') => {
  const report = healthReport();
  const evidence =
    kind === 'page' || kind === 'traffic'
      ? report.pages.rows[0]!
      : kind === 'question'
        ? report.questions.rows[0]!
        : report.searches.rows[0]!;
  return {
    channelId: 'C0DOCS',
    kind,
    key:
      kind === 'search'
        ? 'sso saml'
        : kind === 'question'
          ? 'Does the API support SAML SSO?'
          : '/guides/migrating-from-v1',
    signalId: 'sig1',
    comparison: {
      direction: kind === 'traffic' ? 'drop' : 'rise',
      today: 41,
      expected: 6.2,
      pValue: 0.000_01,
      usual: { low: 2, high: 11 },
    },
    sensitivity: 'normal',
    day: '2026-11-21',
    trend: days
      .map((day, i) => ({ day, value: 5 + i }))
      .concat([{ day: '2026-11-21', value: 41, today: true } as never]),
    evidence,
    evidenceRef: 'ev1',
  };
};

const windowOf = (from: string, to: string, scale: number) => {
  const h = demoHealth();
  return {
    dateFrom: from,
    dateTo: to,
    searches: h.searches.map((s) => ({ ...s, hits: Math.round(s.hits * scale) })),
    totalSearches: 2_000,
    pages: h.pages.map((p) => ({ ...p, thumbsDown: Math.round(p.thumbsDown * scale) })),
    feedback: h.feedback,
    conversations: h.conversations,
    partial: [],
    requests: 4,
  };
};

const snapshot = () => ({
  projectId: 'proj_acme_docs',
  path: '/guides/webhooks',
  range: { from: '2026-11-14', toExclusive: '2026-11-21' },
  previous: { from: '2026-11-07', toExclusive: '2026-11-14' },
  views: { current: { human: 4_100, ai: 1_900 }, previous: { human: 3_900, ai: 1_400 } },
  viewsPartial: false,
  thumbsDown: 11,
  thumbsUp: 48,
  comments: ['The retry schedule in the table does not match what we see.'],
  nearbySearches: [{ query: 'webhook retries', hits: 412 }],
  removed: 0,
  fetchedAt: NOW,
});
const pageData = () => {
  const s = snapshot();
  return {
    snapshot: s,
    evidence: evidenceOf(s as never),
    evidenceId: 'ev1',
    change: { prLink: PR, mergedAt: NOW - 86_400_000, requesterId: USER },
  };
};
const prState = {
  state: 'open',
  draft: false,
  review: 'approved',
  checks: 'passing',
  openedAt: NOW - 3_600_000,
  mergedAt: null,
  mergedBy: null,
  closedAt: null,
  headSha: 'abc',
};
const summary = () => ({
  kind: 'job',
  jobId: JOB_ID,
  prLink: PR,
  requesterId: USER,
  channelId: 'C0DOCS',
  jobStatus: 'completed',
  prompt: 'Document webhook retries',
  pr: prState,
  followed: true,
});
const stateOnly = () => ({
  kind: 'state',
  prLink: PR,
  repo: 'acme/docs',
  number: 123,
  pr: prState,
  followed: true,
  teamId: 'T1',
});

export const MORE_RENDERS: Renders = {
  'health-alert.ts': {
    alertMenu: (m) => [m.alertMenu('abcdefghijklmnop')],
    alertHeadline: (m) =>
      (['search', 'page', 'question', 'traffic'] as const).map((k) =>
        m.alertHeadline(alert(k), 'https://docs.acme.dev'),
      ),
    alertTrendBlocks: (m) => [
      m.alertTrendBlocks(alert('search').trend, 'searches'),
      // A gap in the days: no chart, the sparkline in words.
      m.alertTrendBlocks([
        { day: '2026-11-01', value: 2 },
        { day: '2026-11-20', value: 9 },
      ]),
    ],
    healthAlertMessage: (m) =>
      (['search', 'page', 'question', 'traffic'] as const).map((k) =>
        m.healthAlertMessage(alert(k), { siteUrl: undefined }),
      ),
    healthAlertFollowUpMessage: (m) => [
      m.healthAlertFollowUpMessage(alert('search'), 30, { siteUrl: undefined }),
    ],
  },
  'health-impact.ts': {
    healthImpactMessage: (m) => {
      const evidence = healthReport().searches.rows[0]!;
      const model = compareImpact(
        evidence,
        windowOf('2026-11-01', '2026-11-08', 1) as never,
        windowOf('2026-11-14', '2026-11-21', 0.4) as never,
        { before: 900, after: 1_250 },
      );
      return [
        m.healthImpactMessage(model, { prLink: PR, countedFrom: 'pr' }),
        m.healthImpactMessage(model, { prLink: PR, countedFrom: 'merge' }),
      ];
    },
  },
  'trend-chart.ts': {
    viewsTrendChart: (m) => [
      m.viewsTrendChart({
        current: { buckets, human: counts(800), ai: counts(300) },
        previous: { buckets, human: counts(700), ai: counts(250) },
      }),
    ],
    healthTrendChart: (m) => [
      m.healthTrendChart({
        current: { buckets, noResults: counts(40), thumbsDown: counts(3), unanswered: counts(5) },
      }),
    ],
    searchesLaterNote: (m) => [m.searchesLaterNote(12)],
    chartMissingNote: (m) => [
      m.chartMissingNote('later', 40),
      m.chartMissingNote('failed'),
      m.chartMissingNote('budget'),
    ],
  },
  'unfurls.ts': {
    pagePreview: (m) => [m.pagePreview('https://docs.acme.dev/guides/webhooks', pageData(), 'Acme docs')],
    pullRequestStatePreview: (m) => [m.pullRequestStatePreview(PR, stateOnly())],
    pullRequestPreview: (m) => [m.pullRequestPreview(PR, summary())],
    unfurlPayload: (m) => [m.unfurlPayload([m.pullRequestPreview(PR, summary())])],
  },
  'unfurl-entities.ts': {
    pageEntity: (m) => [m.pageEntity('https://docs.acme.dev/guides/webhooks', pageData())],
    pullRequestEntity: (m) => [m.pullRequestEntity(PR, summary())],
    pullRequestStateEntity: (m) => [m.pullRequestStateEntity(PR, stateOnly())],
  },
  'evidence-summary.ts': {
    evidenceLine: (m) => [m.evidenceLine(undefined)],
  },
};
