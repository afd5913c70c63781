import type { EntityMetadata } from '@slack/types';
import type { PageUnfurlData } from '../../insights/page-snapshot/page-snapshot.js';
import type {
  PullRequestStateOnly,
  PullRequestSummary,
} from '../../jobs/pull-requests/pull-request-index.js';
import { jobTitle } from './job-card.js';
import { oneLine } from './limits.js';

/** A Work Object entity as `chat.unfurl` takes it in `metadata.entities`. */
export type UnfurlEntity = EntityMetadata;

const CONTENT_ITEM = 'slack#/entities/content_item';
const TASK = 'slack#/entities/task';
/** Entity text is shown as plain text by Slack: one line, capped, reader text cleaned before it gets here. */
const plain = (text: string, max: number) => oneLine(text, max);

/** A docs page as a Work Object: its path, views and 👎 as fields (no reader text). */
export function pageEntity(url: string, data: PageUnfurlData): UnfurlEntity {
  const s = data.snapshot;
  const views = (v: { human: number; ai: number }) => Math.max(0, v.human) + Math.max(0, v.ai);
  return {
    app_unfurl_url: url,
    url,
    external_ref: { id: `${s.projectId}:${plain(s.path, 200)}`, type: 'docs_page' },
    entity_type: CONTENT_ITEM,
    entity_payload: {
      attributes: {
        title: { text: plain(s.path, 150) },
        display_type: 'Docs page',
        product_name: 'docs-agent',
      },
      custom_fields: [
        { key: 'views', label: 'Views, last 7 days', type: 'integer', value: views(s.views.current) },
        {
          key: 'views_before',
          label: 'Views, 7 days before',
          type: 'integer',
          value: views(s.views.previous),
        },
        { key: 'thumbs_down', label: 'Readers’ 👎', type: 'integer', value: Math.max(0, s.thumbsDown) },
        {
          key: 'empty_searches',
          label: 'Searches near it that found nothing',
          type: 'integer',
          value: s.nearbySearches.length,
        },
      ],
    },
  };
}

/** A pull request of one of our jobs as a Work Object (a task): state, checks, requester. */
export function pullRequestEntity(url: string, summary: PullRequestSummary): UnfurlEntity {
  return pullRequestTask(url, summary, `docs-agent: ${jobTitle(summary.prompt).text}`, {
    assignee: { type: 'slack#/types/user', user: { user_id: summary.requesterId } },
  });
}

/** A pull request of one of our jobs outside the job's channel: its number and state, nobody named. */
export function pullRequestStateEntity(url: string, view: PullRequestStateOnly): UnfurlEntity {
  return pullRequestTask(url, view, `Pull request ${view.repo}#${view.number}`, {});
}

/** The task both previews of a pull request share; `fields` adds what only the job's own channel sees. */
function pullRequestTask(
  url: string,
  of: Pick<PullRequestSummary, 'prLink' | 'pr'>,
  title: string,
  fields: Record<string, unknown>,
): UnfurlEntity {
  const pr = of.pr;
  return {
    app_unfurl_url: url,
    url,
    external_ref: { id: of.prLink.slice(0, 500), type: 'pull_request' },
    entity_type: TASK,
    entity_payload: {
      attributes: {
        title: { text: plain(title, 150) },
        display_type: 'Pull request',
        product_name: 'docs-agent',
      },
      fields: { status: { value: pr ? pr.state : 'opened' }, ...fields },
      custom_fields: [{ key: 'checks', label: 'Checks', type: 'string', value: pr ? pr.checks : 'unknown' }],
    },
  };
}
