import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { demoHealth, demoViews } from './demo-data.js';

export const DEMO_PROJECT_ID = 'demo-docs';
export const DEMO_DOCS_KEY = 'svc_demo_key_not_a_secret_0123456789abcd';

interface DemoJob {
  id: string;
  status: 'active' | 'completed' | 'failed';
  source: { repository: string; ref: string | null };
  model: string;
  prLink: string | null;
  createdAt: string;
  archivedAt: null;
  /** When the stand-in platform finishes the current round of work (a PR is opened or updated). */
  doneAt: number;
  /** How this round ends: with a PR, or failed (the scenario bar's "Job fails"). */
  outcome: 'pull_request' | 'failed';
}

/**
 * The docs platform for the playground: agent jobs that finish with a pull request a few seconds after they
 * are created or messaged, and page-view and health analytics with believable data. No faults, no limits.
 */
export class StandInDocs {
  private readonly jobs = new Map<string, DemoJob>();
  private counter = 0;
  /** The next job created fails (once). */
  failNext = false;
  /** The next job created keeps working this long instead (the seeded "running" job). */
  slowNextMs: number | undefined;
  /**
   * Search terms that surged today (term → searches so far today): added to today's searches only, so the
   * bot's alert check sees them rise far above their baseline (the scenario bar's "Alert fires").
   */
  readonly surges = new Map<string, number>();
  private server: Server | undefined;
  url = '';

  /** How long a job works before its PR (the seed shortens it while it sets up the channel). */
  constructor(public workMs = 4000) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // The body (a prompt) is read and dropped: the stand-in's jobs do the same work whatever they are asked.
    for await (const _chunk of req);
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${DEMO_DOCS_KEY}`)
      return send(401, { error: 'Invalid API key' });
    const jobs = /^\/v2\/agent\/([^/]+)\/job(?:\/([^/]+))?(\/message)?$/.exec(url.pathname);
    if (jobs) {
      if (decodeURIComponent(jobs[1] ?? '') !== DEMO_PROJECT_ID)
        return send(404, { error: 'Project not found' });
      const id = jobs[2] ? decodeURIComponent(jobs[2]) : undefined;
      if (req.method === 'POST' && !id) return send(201, this.publicJob(this.create()));
      const job = id ? this.jobs.get(id) : undefined;
      if (!job) return send(404, { error: 'Job not found' });
      if (req.method === 'POST' && jobs[3]) {
        job.status = 'active';
        job.outcome = 'pull_request';
        job.doneAt = Date.now() + this.workMs;
        return send(200, this.publicJob(job));
      }
      return send(200, this.publicJob(job));
    }
    const analytics =
      /^\/v1\/analytics\/([^/]+)\/(views|searches|feedback\/by-page|feedback|assistant)$/.exec(url.pathname);
    if (analytics && req.method === 'GET') {
      if (decodeURIComponent(analytics[1] ?? '') !== DEMO_PROJECT_ID)
        return send(404, { error: 'Project not found' });
      const endpoint = analytics[2] ?? '';
      const limit = Number(url.searchParams.get('limit') ?? 50);
      const offset = Number(url.searchParams.get('offset') ?? 0);
      if (endpoint === 'views') {
        const rows = demoViews(url.searchParams.get('dateFrom') ?? '', url.searchParams.get('dateTo') ?? '');
        const totals = rows.reduce(
          (t, r) => ({ human: t.human + r.human, ai: t.ai + r.ai, total: t.total + r.total }),
          { human: 0, ai: 0, total: 0 },
        );
        return send(200, {
          totals,
          views: rows.slice(offset, offset + limit),
          hasMore: offset + limit < rows.length,
        });
      }
      const health = demoHealth();
      // Today's window (the alert check's read) ends at an instant, a past day's at midnight.
      const today = (url.searchParams.get('dateTo') ?? '').length > 10;
      if (today)
        for (const [term, hits] of this.surges)
          health.searches.unshift({
            searchQuery: term,
            hits,
            ctr: 0,
            topClickedPage: null,
            lastSearchedAt: new Date().toISOString(),
          });
      if (endpoint === 'searches')
        return send(200, {
          searches: health.searches.slice(0, limit),
          totalSearches: health.searches.reduce((sum, s) => sum + s.hits, 0),
          nextCursor: null,
        });
      if (endpoint === 'feedback/by-page')
        return send(200, { feedback: health.pages.slice(0, limit), hasMore: health.pages.length > limit });
      if (endpoint === 'feedback')
        return send(200, { feedback: health.feedback.slice(0, limit), nextCursor: null, hasMore: false });
      return send(200, {
        conversations: health.conversations.slice(0, limit),
        nextCursor: null,
        hasMore: false,
      });
    }
    send(404, { error: 'Not found' });
  }

  private create(): DemoJob {
    this.counter += 1;
    const id = `job_demo_${String(this.counter).padStart(3, '0')}`;
    const job: DemoJob = {
      id,
      status: 'active',
      source: { repository: 'https://github.com/acme/docs', ref: null },
      model: 'claude-sonnet-4-5',
      prLink: null,
      createdAt: new Date().toISOString(),
      archivedAt: null,
      doneAt: Date.now() + (this.slowNextMs ?? this.workMs),
      outcome: this.failNext ? 'failed' : 'pull_request',
    };
    this.failNext = false;
    this.slowNextMs = undefined;
    this.jobs.set(id, job);
    return job;
  }

  /** The job as the API answers it; past its work time it is completed with a PR (the same PR on follow-ups). */
  private publicJob(job: DemoJob): Omit<DemoJob, 'doneAt' | 'outcome'> {
    if (job.status === 'active' && Date.now() >= job.doneAt && job.outcome === 'failed')
      job.status = 'failed';
    if (job.status === 'active' && Date.now() >= job.doneAt) {
      job.status = 'completed';
      job.source.ref ??= `docs-agent/${job.id}`;
      job.prLink ??= `https://github.com/acme/docs/pull/${140 + this.counter}`;
    }
    const { doneAt: _doneAt, outcome: _outcome, ...rest } = job;
    return structuredClone(rest);
  }
}
