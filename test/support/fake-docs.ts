import type { IncomingMessage, ServerResponse } from 'node:http';
import { FakeDocsHealth } from './fake-docs-health.js';
import { listen, readBody, sendJson } from './http.js';
import { contractViolation } from './openapi-contract.js';

export const FAKE_PROJECT_ID = 'proj_acme_docs';
export const FAKE_API_KEY = 'svc_fake_test_key_0123456789abcdefghijkl';
/** A key whose scope allows GET only: POSTs get 403, as the reference describes. */
export const FAKE_READONLY_KEY = 'svc_fake_readonly_key_0123456789abcdefgh';

export interface FakeJob {
  id: string;
  status: 'active' | 'completed' | 'archived' | 'failed';
  source: { repository: string; ref: string | null };
  model: string;
  prLink: string | null;
  createdAt: string;
  archivedAt: string | null;
  prompts: string[];
  /** The project the job belongs to (not part of the API's answer). */
  project: string;
}

export interface ViewRow {
  path: string;
  human: number;
  ai: number;
  total: number;
}

export interface ViewsBody {
  totals: Omit<ViewRow, 'path'>;
  views: ViewRow[];
  hasMore: boolean;
}

type Fault =
  | { kind: 'status'; status: number; body?: string; retryAfter?: string }
  | { kind: 'delay'; ms: number }
  | { kind: 'reset' }
  | { kind: 'garbage'; body: string; status?: number };

/** Faults the seeded random mode draws from (see `randomFaults`). */
export type RandomFaultKind =
  | 'status_500'
  | 'status_502'
  | 'status_503'
  | 'reset'
  | 'timeout'
  | 'rate_limited_retry_after'
  | 'rate_limited'
  | 'truncated_json'
  | 'wrong_shape'
  | 'html_error';

export const RANDOM_FAULT_KINDS: readonly RandomFaultKind[] = [
  'status_500',
  'status_502',
  'status_503',
  'reset',
  'timeout',
  'rate_limited_retry_after',
  'rate_limited',
  'truncated_json',
  'wrong_shape',
  'html_error',
];

export interface RandomFaultOptions {
  /** Seed of the generator: the same seed draws the same sequence of faults. */
  seed: number;
  /** Share of matching requests that fail, 0..1. */
  rate: number;
  kinds?: readonly RandomFaultKind[];
  match?: { method?: string; path?: string | RegExp };
  /** How long a `timeout` fault holds the answer (make it longer than the client's timeout). */
  timeoutMs?: number;
}

export interface FakeDocsRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
  authorization: string | undefined;
}

/**
 * The docs platform as its published specs (`test/fixtures/openapi/`, every answer validated) and the
 * reference README describe it: agent jobs (201 on create, GET, follow-up
 * messages, 100 jobs per project per rolling hour then 429, 401 on a wrong key, 403 for a read-only key on
 * POST), page-view analytics (offset paging, exclusive dateTo, views in no particular order) and, through
 * `health` (fake-docs-health.ts), searches, feedback and assistant conversations.
 */
export class FakeDocs {
  readonly jobs = new Map<string, FakeJob>();
  /** The organisation's projects: any other project id in a path gets 404 `Project not found`. */
  readonly projects = new Set<string>([FAKE_PROJECT_ID]);
  /** Page-view rows of one project (any range); projects not listed use `viewsByRange`/`defaultViews`. */
  readonly viewsByProject = new Map<string, ViewRow[]>();
  readonly requests: FakeDocsRequest[] = [];
  /** Per-project budget of job creations and follow-ups per hour. */
  jobsPerHour = 100;
  /** Delay before every answer (for "slow docs API" tests). */
  latencyMs = 0;
  /** Analytics rows per range key `${dateFrom}..${dateTo}`; `defaultViews` for any other range. */
  readonly viewsByRange = new Map<string, ViewRow[]>();
  defaultViews: ViewRow[] = [];
  /** Searches, feedback and assistant conversations (the `/docs-health` endpoints). */
  readonly health = new FakeDocsHealth();
  /**
   * Spec-allowed variations of what the platform answers (missing optional fields, extra fields, fractional
   * counts, a `hasMore` that never turns false…): each rewrites a response body before it is sent.
   */
  readonly reshape: {
    job?: (job: Record<string, unknown>) => unknown;
    views?: (body: ViewsBody, query: URLSearchParams) => unknown;
  } = {};
  /** Answers that broke the published specs (see `answer`); `close` throws when there are any. */
  readonly contractViolations: string[] = [];
  /** Job creations and follow-ups per project in the rolling hour. */
  private readonly creations = new Map<string, number[]>();
  private readonly faults: Array<{ match: (r: FakeDocsRequest) => boolean; fault: Fault }> = [];
  /** Every fault the random mode injected, in order. */
  readonly randomInjected: Array<{ method: string; path: string; kind: RandomFaultKind }> = [];
  private random: { options: RandomFaultOptions; next: () => number } | undefined;
  private counter = 0;
  private close_: (() => Promise<void>) | undefined;
  url = '';

  static async start(): Promise<FakeDocs> {
    const fake = new FakeDocs();
    const server = await listen((req, res) => fake.handle(req, res));
    fake.url = server.url;
    fake.close_ = server.close;
    return fake;
  }

  /** The next request matching `match` (method and path prefix) fails this way, `times` times. */
  inject(match: { method?: string; path?: string | RegExp }, fault: Fault, times = 1): void {
    for (let i = 0; i < times; i++) {
      this.faults.push({
        match: (r) =>
          (match.method === undefined || r.method === match.method) &&
          (match.path === undefined ||
            (typeof match.path === 'string' ? r.path.startsWith(match.path) : match.path.test(r.path))),
        fault,
      });
    }
  }

  /**
   * Seeded random faults: each request matching `match` (after explicit `inject` faults) fails with
   * probability `rate`, with a kind drawn from `kinds`. `undefined` turns the mode off.
   */
  randomFaults(options: RandomFaultOptions | undefined): void {
    this.random = options ? { options, next: seededRandom(options.seed) } : undefined;
  }

  requestsTo(method: string, pathPattern: RegExp): FakeDocsRequest[] {
    return this.requests.filter((r) => r.method === method && pathPattern.test(r.path));
  }

  get onlyJob(): FakeJob {
    const [job] = [...this.jobs.values()];
    if (!job || this.jobs.size !== 1) throw new Error(`expected exactly one job, found ${this.jobs.size}`);
    return job;
  }

  /** A new active job, as the platform creates it (also for seeding jobs directly). */
  addJob(id: string, prompt: string, project = FAKE_PROJECT_ID): FakeJob {
    const job: FakeJob = {
      id,
      status: 'active',
      source: { repository: 'https://github.com/acme/docs', ref: null },
      model: 'claude-sonnet-4-5',
      prLink: null,
      createdAt: new Date().toISOString(),
      archivedAt: null,
      prompts: [prompt],
      project,
    };
    this.jobs.set(id, job);
    return job;
  }

  setRef(id: string, ref: string): void {
    this.job(id).source.ref = ref;
  }

  complete(
    id: string,
    prLink: string | null = `https://github.com/acme/docs/pull/${100 + this.jobs.size}`,
  ): void {
    const job = this.job(id);
    job.status = 'completed';
    job.prLink = prLink;
    job.source.ref ??= `docs-agent/${id}`;
  }

  fail(id: string): void {
    this.job(id).status = 'failed';
  }

  archive(id: string): void {
    const job = this.job(id);
    job.status = 'archived';
    job.archivedAt = new Date().toISOString();
  }

  remove(id: string): void {
    this.jobs.delete(id);
  }

  /** Closes the server; throws when any answer broke the published specs, so no test passes on drift. */
  async close(): Promise<void> {
    await this.close_?.();
    if (this.contractViolations.length > 0) {
      throw new Error(
        `fake-docs answered outside the published specs:\n${this.contractViolations.join('\n')}`,
      );
    }
  }

  private job(id: string): FakeJob {
    const job = this.jobs.get(id);
    if (!job) throw new Error(`no fake job ${id}`);
    return job;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://fake');
    let body: unknown;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = raw;
    }
    const request: FakeDocsRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      body,
      authorization: req.headers.authorization,
    };
    this.requests.push(request);
    if (this.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));

    const faultIndex = this.faults.findIndex((f) => f.match(request));
    const fault = faultIndex !== -1 ? this.faults.splice(faultIndex, 1)[0]!.fault : this.randomFault(request);
    if (fault) {
      if (fault.kind === 'reset') {
        req.socket.destroy();
        return;
      }
      if (fault.kind === 'delay') await new Promise((resolve) => setTimeout(resolve, fault.ms));
      if (fault.kind === 'status') {
        res.writeHead(fault.status, {
          'content-type': 'application/json',
          ...(fault.retryAfter === undefined ? {} : { 'retry-after': fault.retryAfter }),
        });
        res.end(fault.body ?? JSON.stringify({ error: `injected ${fault.status}` }));
        return;
      }
      if (fault.kind === 'garbage') {
        res.writeHead(fault.status ?? 200, { 'content-type': 'text/html' });
        res.end(fault.body);
        return;
      }
    }
    this.route(request, res);
  }

  private randomFault(r: FakeDocsRequest): Fault | undefined {
    if (!this.random) return undefined;
    const { options, next } = this.random;
    const { match } = options;
    if (match?.method !== undefined && r.method !== match.method) return undefined;
    if (
      match?.path !== undefined &&
      !(typeof match.path === 'string' ? r.path.startsWith(match.path) : match.path.test(r.path))
    )
      return undefined;
    if (next() >= options.rate) return undefined;
    const kinds = options.kinds ?? RANDOM_FAULT_KINDS;
    const kind = kinds[Math.floor(next() * kinds.length)]!;
    this.randomInjected.push({ method: r.method, path: r.path, kind });
    switch (kind) {
      case 'status_500':
        return { kind: 'status', status: 500 };
      case 'status_502':
        return { kind: 'status', status: 502 };
      case 'status_503':
        return { kind: 'status', status: 503 };
      case 'reset':
        return { kind: 'reset' };
      case 'timeout':
        return { kind: 'delay', ms: options.timeoutMs ?? 1_000 };
      case 'rate_limited_retry_after':
        return { kind: 'status', status: 429, retryAfter: '1', body: JSON.stringify({ error: 'Slow down' }) };
      case 'rate_limited':
        return { kind: 'status', status: 429, body: JSON.stringify({ error: 'Rate limit exceeded' }) };
      case 'truncated_json':
        return { kind: 'garbage', status: 200, body: '{"id":"job_trunc","status":"act' };
      case 'wrong_shape':
        return { kind: 'garbage', status: 200, body: JSON.stringify({ data: { jobs: [] }, ok: true }) };
      case 'html_error':
        return {
          kind: 'garbage',
          status: 502,
          body: '<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>',
        };
    }
  }

  private route(r: FakeDocsRequest, res: ServerResponse) {
    const key = r.authorization?.replace(/^Bearer /, '');
    if (key !== FAKE_API_KEY && key !== FAKE_READONLY_KEY)
      return this.answer(r, res, 401, { error: 'Invalid API key' });
    if (r.method === 'POST' && key === FAKE_READONLY_KEY)
      return this.answer(r, res, 403, { error: 'API key lacks write scope' });

    const jobs = /^\/v2\/agent\/([^/]+)\/job(?:\/([^/]+))?(\/message)?$/.exec(r.path);
    if (jobs) {
      const project = decodeURIComponent(jobs[1]!);
      const [, , id, message] = jobs;
      if (!this.projects.has(project)) return this.answer(r, res, 404, { error: 'Project not found' });
      if (r.method === 'POST' && !id) return this.createJob(project, r, res);
      // A job of another project does not exist in this one.
      const job = id ? this.jobs.get(decodeURIComponent(id)) : undefined;
      const found = job?.project === project ? job : undefined;
      if (r.method === 'GET' && id && !message) {
        return found
          ? this.answer(r, res, 200, this.publicJob(found))
          : this.answer(r, res, 404, { error: 'Job not found' });
      }
      if (r.method === 'POST' && id && message) return this.sendMessage(found, r, res);
    }
    const views = /^\/v1\/analytics\/([^/]+)\/views$/.exec(r.path);
    if (views && r.method === 'GET') {
      const project = decodeURIComponent(views[1]!);
      if (!this.projects.has(project)) return this.answer(r, res, 404, { error: 'Project not found' });
      return this.pageViews(project, r, res);
    }
    const known = (project: string) => this.projects.has(decodeURIComponent(project));
    if (this.health.route(r, known, (status, body) => this.answer(r, res, status, body))) return;
    this.answer(r, res, 404, { error: 'Not found' });
  }

  /** Every answer of the routes is checked against the published specs: drift fails the test, loudly. */
  private answer(r: FakeDocsRequest, res: ServerResponse, status: number, body: unknown): void {
    const violation = contractViolation(r.method, r.path, status, body);
    if (violation) {
      this.contractViolations.push(violation);
      process.stderr.write(`fake-docs contract drift: ${violation}\n`);
      sendJson(res, 500, { error: 'fake-docs contract drift (see test output)' });
      return;
    }
    sendJson(res, status, body);
  }

  private publicJob(job: FakeJob): unknown {
    const body = publicJob(job);
    return this.reshape.job ? this.reshape.job(body as unknown as Record<string, unknown>) : body;
  }

  private promptOf(r: FakeDocsRequest): string | undefined {
    const prompt = (r.body as { prompt?: unknown } | undefined)?.prompt;
    return typeof prompt === 'string' && prompt.length >= 1 ? prompt : undefined;
  }

  private takeSlot(project: string): boolean {
    const now = Date.now();
    const creations = this.creations.get(project) ?? [];
    this.creations.set(project, creations);
    while (creations.length > 0 && creations[0]! <= now - 3_600_000) creations.shift();
    if (creations.length >= this.jobsPerHour) return false;
    creations.push(now);
    return true;
  }

  private createJob(project: string, r: FakeDocsRequest, res: ServerResponse) {
    const prompt = this.promptOf(r);
    if (!prompt)
      return this.answer(r, res, 400, { error: 'prompt: String must contain at least 1 character(s)' });
    if (!this.takeSlot(project)) return this.answer(r, res, 429, { error: 'Rate limit exceeded' });
    this.counter += 1;
    const job = this.addJob(`job_${String(this.counter).padStart(4, '0')}`, prompt, project);
    this.answer(r, res, 201, this.publicJob(job));
  }

  private sendMessage(job: FakeJob | undefined, r: FakeDocsRequest, res: ServerResponse) {
    if (!job) return this.answer(r, res, 404, { error: 'Job not found' });
    const prompt = this.promptOf(r);
    if (!prompt)
      return this.answer(r, res, 400, { error: 'prompt: String must contain at least 1 character(s)' });
    if (!this.takeSlot(job.project)) return this.answer(r, res, 429, { error: 'Rate limit exceeded' });
    job.prompts.push(prompt);
    job.status = 'active';
    this.answer(r, res, 200, this.publicJob(job));
  }

  private pageViews(project: string, r: FakeDocsRequest, res: ServerResponse) {
    const limit = r.query.has('limit') ? Number(r.query.get('limit')) : 50;
    const offset = r.query.has('offset') ? Number(r.query.get('offset')) : 0;
    if (!Number.isInteger(limit) || limit < 1 || limit > 250) {
      return this.answer(r, res, 400, {
        error: 'Invalid query parameters',
        details: [{ message: 'limit must be between 1 and 250' }],
      });
    }
    if (!Number.isInteger(offset) || offset < 0) {
      return this.answer(r, res, 400, {
        error: 'Invalid query parameters',
        details: [{ message: 'offset must be >= 0' }],
      });
    }
    const dateFrom = r.query.get('dateFrom') ?? '';
    const dateTo = r.query.get('dateTo') ?? '';
    // The spec allows `YYYY-MM-DD` or ISO 8601 (an instant with its offset).
    const dateFormat = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/;
    const isDate = (value: string) => dateFormat.test(value) && !Number.isNaN(Date.parse(value));
    if ((dateFrom && !isDate(dateFrom)) || (dateTo && !isDate(dateTo))) {
      return this.answer(r, res, 400, {
        error: 'Invalid query parameters',
        details: [{ message: 'dates must be YYYY-MM-DD or ISO 8601' }],
      });
    }
    const rows =
      this.viewsByProject.get(project) ??
      this.viewsByRange.get(`${dateFrom}..${dateTo}`) ??
      this.defaultViews;
    const totals = rows.reduce(
      (t, row) => ({ human: t.human + row.human, ai: t.ai + row.ai, total: t.total + row.total }),
      { human: 0, ai: 0, total: 0 },
    );
    const body: ViewsBody = {
      totals,
      views: rows.slice(offset, offset + limit),
      hasMore: offset + limit < rows.length,
    };
    this.answer(r, res, 200, this.reshape.views ? this.reshape.views(body, r.query) : body);
  }
}

function publicJob(job: FakeJob): Omit<FakeJob, 'prompts' | 'project'> {
  const { prompts: _prompts, project: _project, ...rest } = job;
  return structuredClone(rest);
}

/** `count` page rows with distinct totals, shuffled so the API's order says nothing about rank. */
export function makeViewRows(count: number, seed = 42): ViewRow[] {
  let state = seed;
  const random = () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const rows: ViewRow[] = Array.from({ length: count }, (_, i) => {
    const total = (count - i) * 3 + 1;
    const ai = Math.floor(total * random() * 0.6);
    return { path: `/docs/page-${String(i).padStart(5, '0')}`, human: total - ai, ai, total };
  });
  for (let i = rows.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [rows[i], rows[j]] = [rows[j]!, rows[i]!];
  }
  return rows;
}

/** mulberry32: a small seeded generator, so random faults repeat run after run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
