import type { components } from '@octokit/openapi-types';

/*
 * Every shape the fake answers with is typed from GitHub's published OpenAPI description
 * (@octokit/openapi-types, the one @octokit/rest is generated from): a field renamed or retyped there fails
 * typecheck here. The fake answers a subset of each schema's fields: those the bot reads, and their neighbours.
 */
export type Schemas = components['schemas'];
export type Login = Pick<Schemas['simple-user'], 'login'>;
export type PullFields = Pick<
  Schemas['pull-request'],
  'number' | 'state' | 'merged' | 'merged_at' | 'created_at' | 'updated_at' | 'closed_at' | 'html_url'
> & { draft: NonNullable<Schemas['pull-request']['draft']>; merged_by: Login | null };
export type ListedPull = Pick<
  Schemas['pull-request-simple'],
  'number' | 'state' | 'merged_at' | 'created_at' | 'updated_at' | 'closed_at' | 'html_url' | 'draft'
> & { head: Pick<Schemas['pull-request-simple']['head'], 'sha' | 'ref'> };
export type Review = Pick<Schemas['pull-request-review'], 'id' | 'state'> & {
  user: Login;
  submitted_at: NonNullable<Schemas['pull-request-review']['submitted_at']>;
};
export type CheckRun = Pick<Schemas['check-run'], 'id' | 'name' | 'status' | 'conclusion'>;
export type CommitStatus = Pick<Schemas['simple-commit-status'], 'state' | 'context'>;
export type CombinedStatus = Pick<Schemas['combined-commit-status'], 'state' | 'total_count' | 'sha'> & {
  statuses: CommitStatus[];
};
export type DiffEntry = Pick<Schemas['diff-entry'], 'filename' | 'status'>;
export type CoreLimit = Pick<Schemas['rate-limit'], 'limit' | 'remaining'>;

export interface FakePull extends PullFields {
  head: Pick<Schemas['pull-request']['head'], 'sha' | 'ref'>;
  reviews: Review[];
  checkRuns: CheckRun[];
  statuses: CommitStatus[];
  /** Paths the PR changed (`GET …/pulls/{n}/files`); none when absent. */
  files?: string[];
  /** Title and size, as `GET …/pulls/{n}` returns them; absent unless a test sets them. */
  title?: string;
  additions?: number;
  deletions?: number;
  changed_files?: number;
}

export interface FakeGitHubRequest {
  method: string;
  path: string;
  status: number;
  /** Sent with If-None-Match. */
  conditional: boolean;
  /** When it arrived (ms). */
  at: number;
  /** The Authorization header it carried (tests check whose token was used). */
  auth?: string | undefined;
}
