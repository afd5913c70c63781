import type { z } from 'zod';
import { DocsApiError } from '../common/docs-api-error.js';
import type { Logger } from '../common/logger.js';
import type { AgentJob } from '../jobs/domain/job.js';
import type { OriginDispatchers } from './dispatchers.js';
import {
  type AssistantPage,
  assistantPageSchema,
  type FeedbackByPage,
  type FeedbackPage,
  feedbackByPageSchema,
  feedbackPageSchema,
  type SearchesPage,
  searchesPageSchema,
} from './health-schemas.js';
import { type ApiMetrics, HttpTransport, type JsonRequest } from './http-transport.js';
import { agentJobSchema, type PageViewsPage, pageViewsSchema } from './schemas.js';

export interface DocsClientOptions {
  baseUrl: string;
  apiKey: string;
  projectId: string;
  timeoutMs: number;
  logger: Logger;
  retries?: number;
  retryBaseMs?: number;
  /** Counts each upstream attempt by outcome (see `ApiMetrics`). */
  metrics?: ApiMetrics;
  /** OAuth mode: the keys were connected in Slack (a refusal says so, for advice that fits). */
  keyConnectedInSlack?: boolean;
  /** The process's pools, one per origin (absent: one of this client's own, closed with it). */
  dispatchers?: OriginDispatchers;
}

export interface PageViewsQuery {
  dateFrom: string;
  /** Exclusive, as the API defines it. */
  dateTo: string;
  limit: number;
  offset: number;
}

/** A range and one cursor page of a cursor-paged analytics endpoint (no cursor: the first page). */
export interface CursorQuery {
  dateFrom: string;
  /** Exclusive, as the API defines it. */
  dateTo: string;
  limit: number;
  cursor?: string;
}

/** The docs platform's agent-job and analytics operations, with validated responses and typed errors. */
export class DocsApiClient {
  private readonly transport: HttpTransport;
  private readonly project: string;
  private readonly logger: Logger;
  private readonly options: DocsClientOptions;
  /** The clients of other projects, sharing this one's pool and key (`forProject`). */
  private readonly siblings: Map<string, DocsApiClient>;

  constructor(
    options: DocsClientOptions,
    shared?: { transport: HttpTransport; siblings: Map<string, DocsApiClient> },
  ) {
    this.transport = shared?.transport ?? new HttpTransport(options);
    this.logger = options.logger;
    this.project = encodeURIComponent(options.projectId);
    this.siblings = shared?.siblings ?? new Map([[options.projectId, this]]);
    this.options = options;
  }

  /**
   * The same operations on another project: with the project's own admin key when it has one
   * (DOCS_CHANNEL_PROJECTS), else this client's; every project's calls share one connection pool (closing
   * any of them closes the pool).
   */
  forProject(projectId: string, apiKey?: string): DocsApiClient {
    let client = this.siblings.get(projectId);
    // A project reconnected with a new key (OAuth mode) gets a client with that key.
    if (!client || (apiKey !== undefined && client.options.apiKey !== apiKey)) {
      client = new DocsApiClient(
        { ...this.options, projectId, ...(apiKey ? { apiKey } : {}) },
        { transport: this.transport, siblings: this.siblings },
      );
      this.siblings.set(projectId, client);
    }
    return client;
  }

  createJob(prompt: string): Promise<AgentJob> {
    // Never retried once it may have reached the server: a retry could start a second job.
    return this.call(
      { method: 'POST', path: `/v2/agent/${this.project}/job`, body: { prompt }, idempotent: false },
      agentJobSchema,
    );
  }

  getJob(jobId: string): Promise<AgentJob> {
    return this.call(
      { method: 'GET', path: `/v2/agent/${this.project}/job/${encodeURIComponent(jobId)}`, idempotent: true },
      agentJobSchema,
    );
  }

  sendMessage(jobId: string, prompt: string): Promise<AgentJob> {
    return this.call(
      {
        method: 'POST',
        path: `/v2/agent/${this.project}/job/${encodeURIComponent(jobId)}/message`,
        body: { prompt },
        idempotent: false,
      },
      agentJobSchema,
    );
  }

  /** One page of views. Retried at most once: every call spends the organisation's hourly analytics budget. */
  getPageViews(query: PageViewsQuery): Promise<PageViewsPage> {
    return this.call(
      {
        method: 'GET',
        path: `/v1/analytics/${this.project}/views`,
        query: { dateFrom: query.dateFrom, dateTo: query.dateTo, limit: query.limit, offset: query.offset },
        idempotent: true,
        retries: 1,
      },
      pageViewsSchema,
    );
  }

  /** Search terms by hits, descending (`limit` ≤ 100, `nextCursor`). */
  getSearches(query: CursorQuery): Promise<SearchesPage> {
    return this.analytics('searches', query, searchesPageSchema);
  }

  /** 👍/👎 per page: the spec gives no cursor or offset, so one call of `limit` ≤ 100 is all there is. */
  getFeedbackByPage(query: Omit<CursorQuery, 'cursor'>): Promise<FeedbackByPage> {
    return this.analytics('feedback/by-page', query, feedbackByPageSchema);
  }

  /** Feedback entries with their comments (`limit` ≤ 100, `nextCursor`). */
  getFeedback(query: CursorQuery): Promise<FeedbackPage> {
    return this.analytics('feedback', query, feedbackPageSchema);
  }

  /** Assistant conversations (`limit` ≤ 1000, ULID `nextCursor`). */
  getAssistantConversations(query: CursorQuery): Promise<AssistantPage> {
    return this.analytics('assistant', query, assistantPageSchema);
  }

  close(): Promise<void> {
    return this.transport.close();
  }

  /** Retried at most once, as page views: every call spends the organisation's hourly analytics budget. */
  private analytics<S extends z.ZodType>(
    endpoint: string,
    query: CursorQuery,
    schema: S,
  ): Promise<z.output<S>> {
    return this.call(
      {
        method: 'GET',
        path: `/v1/analytics/${this.project}/${endpoint}`,
        query: {
          dateFrom: query.dateFrom,
          dateTo: query.dateTo,
          limit: query.limit,
          ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
        },
        idempotent: true,
        retries: 1,
      },
      schema,
    );
  }

  private async call<S extends z.ZodType>(req: JsonRequest, schema: S): Promise<z.output<S>> {
    // A tenant with no project connected: refused here, never sent without a key.
    if (!this.options.apiKey)
      throw new DocsApiError(
        'not_connected',
        'No docs project is connected: an admin must run /docs-agent connect',
      );
    const response = await this.transport.request({ ...req, apiKey: this.options.apiKey });
    const parsed = schema.safeParse(response.body);
    if (!parsed.success) {
      // Which field and why, never the value: a body may carry anything, including a leaked credential.
      this.logger.warn(
        {
          method: req.method,
          path: req.path,
          status: response.status,
          problems: describeIssues(parsed.error),
        },
        'docs API response rejected',
      );
      throw new DocsApiError(
        'bad_response',
        `The docs API answered ${response.status} with an unexpected body`,
        {
          status: response.status,
        },
      );
    }
    return parsed.data;
  }
}

const MAX_LOGGED_ISSUES = 5;

/** `views.3.total: expected number, received string`: field paths and zod's reasons (no input values). */
export function describeIssues(error: z.ZodError): string[] {
  return error.issues.slice(0, MAX_LOGGED_ISSUES).map((issue) => {
    const field = issue.path.length > 0 ? issue.path.map(String).join('.') : '(body)';
    const reason =
      issue.code === 'invalid_type'
        ? `expected ${issue.expected}`
        : issue.code === 'too_big' || issue.code === 'too_small'
          ? `${issue.code.replace('_', ' ')} (${issue.origin})`
          : issue.code;
    return `${field}: ${reason}`;
  });
}
