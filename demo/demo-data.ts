/** Believable analytics for the playground's stand-in docs platform: a mid-sized product's documentation. */

export interface DemoViewRow {
  path: string;
  human: number;
  ai: number;
  total: number;
}

/** Daily views per page on an ordinary weekday; AI share differs per page (API references attract agents). */
const PAGES: Array<[path: string, daily: number, aiShare: number]> = [
  ['/quickstart', 1840, 0.18],
  ['/api-reference/authentication', 1320, 0.46],
  ['/guides/webhooks', 960, 0.31],
  ['/api-reference/pagination', 780, 0.52],
  ['/guides/deploy-to-production', 640, 0.12],
  ['/sdks/typescript', 590, 0.38],
  ['/guides/migrating-from-v1', 410, 0.09],
  ['/concepts/rate-limits', 380, 0.44],
  ['/changelog', 290, 0.05],
  ['/troubleshooting/errors', 260, 0.27],
  ['/sdks/python', 240, 0.35],
  ['/guides/custom-domains', 150, 0.11],
];

const DAY_MS = 86_400_000;

/** Views of every page in `[dateFrom, dateTo)`, weekends quieter, a slow upward trend. */
export function demoViews(dateFrom: string, dateTo: string): DemoViewRow[] {
  const to = Date.parse(dateTo) || Date.now();
  const from = Date.parse(dateFrom) || to - 7 * DAY_MS;
  const rows = new Map<string, DemoViewRow>();
  for (let day = Math.floor(from / DAY_MS) * DAY_MS; day < to; day += DAY_MS) {
    if (day < from) continue;
    const weekday = new Date(day).getUTCDay();
    const dayFactor = (weekday === 0 || weekday === 6 ? 0.45 : 1) * (1 + ((day / DAY_MS) % 17) / 100);
    for (const [path, daily, aiShare] of PAGES) {
      const total = Math.round(daily * dayFactor);
      const ai = Math.round(total * aiShare);
      const row = rows.get(path) ?? { path, human: 0, ai: 0, total: 0 };
      rows.set(path, { path, human: row.human + total - ai, ai: row.ai + ai, total: row.total + total });
    }
  }
  // The API promises no order: the bot ranks them itself.
  return [...rows.values()].reverse();
}

const at = (hoursAgo: number) => new Date(Date.now() - hoursAgo * 3_600_000).toISOString();

/** Searches (some finding nothing), flagged pages, feedback and unanswered assistant questions. */
export function demoHealth() {
  const searches = [
    ['webhook retries', 412, 0.41, '/guides/webhooks'],
    ['sso saml', 233, 0, null],
    ['rate limit headers', 198, 0.37, '/concepts/rate-limits'],
    ['terraform provider', 164, 0, null],
    ['delete account', 121, 0, null],
    ['python async client', 97, 0.22, '/sdks/python'],
    ['ip allowlist', 84, 0, null],
  ].map(([searchQuery, hits, ctr, topClickedPage], i) => ({
    searchQuery: String(searchQuery),
    hits: Number(hits),
    ctr: Number(ctr),
    topClickedPage: topClickedPage === null ? null : String(topClickedPage),
    lastSearchedAt: at(i + 1),
  }));
  const pages = [
    ['/guides/migrating-from-v1', 12, 19, 3],
    ['/guides/webhooks', 48, 11, 2],
    ['/api-reference/pagination', 31, 7, 0],
    ['/quickstart', 88, 4, 1],
  ].map(([path, thumbsUp, thumbsDown, code]) => ({
    path: String(path),
    thumbsUp: Number(thumbsUp),
    thumbsDown: Number(thumbsDown),
    code: Number(code),
    total: Number(thumbsUp) + Number(thumbsDown),
  }));
  const comments: Array<[string, string]> = [
    ['/guides/migrating-from-v1', 'Step 3 still uses the v1 client constructor.'],
    ['/guides/migrating-from-v1', 'Which version drops the legacy auth header? Not stated anywhere.'],
    ['/guides/webhooks', 'The retry schedule in the table does not match what we see.'],
    ['/api-reference/pagination', 'Example cursor is expired, copy-paste fails.'],
  ];
  const feedback = comments.map(([path, comment], i) => ({
    id: `fb_demo_${i}`,
    path,
    comment,
    createdAt: at(3 * i + 2),
    source: 'contextual' as const,
    status: 'pending' as const,
    helpful: false,
    contact: null,
  }));
  const questions = [
    'How do I rotate a webhook signing secret?',
    'Does the API support SAML SSO?',
    'How do I set up the Terraform provider?',
    'What is the max page size for /events?',
  ];
  const conversations = questions.map((query, i) => ({
    id: `01JDEMO000000000000000000${i}`,
    timestamp: at(i + 1),
    query,
    response: i === 3 ? 'The maximum is 100 items per page.' : 'I could not find that in the docs.',
    sources: [],
    resolutionStatus: i === 3 ? ('answered' as const) : ('unanswered' as const),
    queryCategory: null,
    pageUrl: null,
  }));
  return { searches, pages, feedback, conversations };
}
