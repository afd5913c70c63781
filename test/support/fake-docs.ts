import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  applyFault,
  drawFault,
  type Fault,
  matchesRequest,
  type RandomFaultKind,
  type RandomFaultOptions,
  type RequestMatch,
} from './fake-docs-faults.js';
import { FakeDocsHealth } from './fake-docs-health.js';
import { type FakeJob, newFakeJob, promptOf, publicJob, takeHourlySlot } from './fake-docs-jobs.js';
import { type FakeDocsRequest, readFakeDocsRequest } from './fake-docs-request.js';
import { pageViewsAnswer, rowsOverDays, type ViewRow, type ViewsBody } from './fake-docs-views.js';
import { listen, sendJson } from './http.js';
import { contractViolation, requestRefusal } from './openapi-contract.js';
import { seededRandom } from './seeded-random.js';

export { RANDOM_FAULT_KINDS, type RandomFaultKind, type RandomFaultOptions } from './fake-docs-faults.js';
export type { FakeJob } from './fake-docs-jobs.js';
export type { FakeDocsRequest } from './fake-docs-request.js';
export { makeViewRows, type ViewRow, type ViewsBody } from './fake-docs-views.js';
export { seededRandom } from './seeded-random.js';

export const FAKE_PROJECT_ID = 'proj_acme_docs';
export const FAKE_API_KEY = 'svc_fake_test_key_0123456789abcdefghijkl';
/** A key whose scope allows GET only: POSTs get 403, as the reference describes. */
export const FAKE_READONLY_KEY = 'svc_fake_readonly_key_0123456789abcdefgh';

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
  /** Projects with their own admin key: only that key opens them (the organisation's key does not). */
  readonly projectKeys = new Map<string, string>();
  /** Page-view rows of one project (any range); projects not listed use `viewsByRange`/`defaultViews`. */
  readonly viewsByProject = new Map<string, ViewRow[]>();
  readonly requests: FakeDocsRequest[] = [];
  /** Per-project budget of job creations and follow-ups per hour. */
  jobsPerHour = 100;
  /** Delay before every answer (for "slow docs API" tests). */
  latencyMs = 0;
  /** Requests the fake has answered (after any latency or delay), in order: what came before an answer. */
  readonly answered: FakeDocsRequest[] = [];
  /** Analytics rows per range key `${dateFrom}..${dateTo}`; `defaultViews` for any other range. */
  readonly viewsByRange = new Map<string, ViewRow[]>();
  /** Rows per UTC day: when set, any range answers with the sum of its days (`rowsOverDays`). */
  readonly viewsByDay = new Map<string, ViewRow[]>();
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
  /** Requests the specs refuse (answered 400 with the spec's error object), in order. */
  readonly requestViolations: string[] = [];
  /** Job creations and follow-ups per project in the rolling hour. */
  private readonly creations = new Map<string, number[]>();
  private readonly faults: Array<{ match: RequestMatch; fault: Fault }> = [];
  /** Every fault the random mode injected, in order. */
  readonly randomInjected: Array<{ method: string; path: string; kind: RandomFaultKind }> = [];
  private random: { options: RandomFaultOptions; next: () => number } | undefined;
  private counter = 0;
  private close_: (() => Promise<void>) | undefined;
  private server_: Awaited<ReturnType<typeof listen>>['server'] | undefined;
  url = '';
  /** TCP connections opened to the platform so far (each HTTP pool of the bot opens its own). */
  connections = 0;
  /** Per connection, the API keys its requests carried (a connection shared by tenants carries several). */
  readonly keysBySocket = new Map<object, Set<string>>();

  static async start(): Promise<FakeDocs> {
    const fake = new FakeDocs();
    const server = await listen((req, res) => {
      const keys = fake.keysBySocket.get(req.socket) ?? new Set<string>();
      fake.keysBySocket.set(req.socket, keys.add(String(req.headers.authorization)));
      return fake.handle(req, res);
    });
    fake.url = server.url;
    fake.close_ = server.close;
    fake.server_ = server.server;
    server.server.on('connection', () => {
      fake.connections += 1;
    });
    return fake;
  }

  /** How long an idle kept-alive connection stays open (1 s by default). */
  keepAliveFor(ms: number): void {
    if (this.server_) this.server_.keepAliveTimeout = ms;
  }

  /** The next request matching `match` (method and path prefix) fails this way, `times` times. */
  inject(match: RequestMatch, fault: Fault, times = 1): void {
    for (let i = 0; i < times; i++) this.faults.push({ match, fault });
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
    const job = newFakeJob(id, prompt, project);
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
    const request = await readFakeDocsRequest(req);
    this.requests.push(request);
    if (this.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
    const faultIndex = this.faults.findIndex((f) => matchesRequest(f.match, request));
    const fault = faultIndex !== -1 ? this.faults.splice(faultIndex, 1)[0]!.fault : this.randomFault(request);
    if (fault && (await applyFault(fault, req, res))) return;
    this.route(request, res);
  }

  private randomFault(r: FakeDocsRequest): Fault | undefined {
    if (!this.random) return undefined;
    const drawn = drawFault(this.random.options, this.random.next, r);
    if (drawn) this.randomInjected.push({ method: r.method, path: r.path, kind: drawn.kind });
    return drawn?.fault;
  }

  private route(r: FakeDocsRequest, res: ServerResponse) {
    this.answered.push(r);
    const key = r.authorization?.replace(/^Bearer /, '');
    const project = /^\/v[12]\/(?:agent|analytics)\/([^/]+)/.exec(r.path)?.[1];
    const ownKey = project === undefined ? undefined : this.projectKeys.get(decodeURIComponent(project));
    if (ownKey !== undefined && key !== ownKey)
      return this.answer(r, res, 401, { error: 'Invalid API key for this project' });
    if (ownKey === undefined && key !== FAKE_API_KEY && key !== FAKE_READONLY_KEY)
      return this.answer(r, res, 401, { error: 'Invalid API key' });
    if (r.method === 'POST' && key === FAKE_READONLY_KEY)
      return this.answer(r, res, 403, { error: 'API key lacks write scope' });
    // The bot's request is held to the specs too: a malformed one gets the documented 400.
    const refused = requestRefusal(r, this.requestViolations);
    if (refused) return this.answer(r, res, refused.status, refused.body);

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

  private takeSlot(project: string): boolean {
    return takeHourlySlot(this.creations, project, this.jobsPerHour);
  }

  private createJob(project: string, r: FakeDocsRequest, res: ServerResponse) {
    const prompt = promptOf(r.body);
    if (!prompt)
      return this.answer(r, res, 400, { error: 'prompt: String must contain at least 1 character(s)' });
    if (!this.takeSlot(project)) return this.answer(r, res, 429, { error: 'Rate limit exceeded' });
    this.counter += 1;
    const job = this.addJob(`job_${String(this.counter).padStart(4, '0')}`, prompt, project);
    this.answer(r, res, 201, this.publicJob(job));
  }

  private sendMessage(job: FakeJob | undefined, r: FakeDocsRequest, res: ServerResponse) {
    if (!job) return this.answer(r, res, 404, { error: 'Job not found' });
    const prompt = promptOf(r.body);
    if (!prompt)
      return this.answer(r, res, 400, { error: 'prompt: String must contain at least 1 character(s)' });
    if (!this.takeSlot(job.project)) return this.answer(r, res, 429, { error: 'Rate limit exceeded' });
    job.prompts.push(prompt);
    job.status = 'active';
    this.answer(r, res, 200, this.publicJob(job));
  }

  private pageViews(project: string, r: FakeDocsRequest, res: ServerResponse) {
    const dateRange = `${r.query.get('dateFrom') ?? ''}..${r.query.get('dateTo') ?? ''}`;
    const rows =
      this.viewsByProject.get(project) ??
      this.viewsByRange.get(dateRange) ??
      (this.viewsByDay.size > 0
        ? rowsOverDays(this.viewsByDay, r.query.get('dateFrom') ?? '', r.query.get('dateTo') ?? '')
        : this.defaultViews);
    const answer = pageViewsAnswer(rows, r.query);
    const body =
      answer.status === 200 && this.reshape.views
        ? this.reshape.views(answer.body as ViewsBody, r.query)
        : answer.body;
    this.answer(r, res, answer.status, body);
  }
}
