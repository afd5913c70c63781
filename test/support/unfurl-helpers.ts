import { expect } from 'vitest';
import { DEFAULT_RANGE, previousPeriod, resolveRange } from '../../src/insights/ranges/dates.js';
import type { FakeDocs } from './fake-docs.js';
import { waitFor } from './http.js';
import { eventEnvelope, nextMessageTs } from './slack-events.js';
import type { TestApp } from './test-app.js';

/** A docs page with numbers on the fake platform, and pasting links the way Slack announces them. */

export const SITE = 'https://docs.acme.dev';
export const PAGE = `${SITE}/guides/rotate-keys`;
export const CHANNEL = 'C0DOCS';
type Json = Record<string, unknown>;

/** This week's and last week's views of /guides/rotate-keys, its 👎 and comments, and two empty searches. */
export function seedPage(docs: FakeDocs): void {
  const week = resolveRange(DEFAULT_RANGE, Date.now(), 'UTC');
  const before = previousPeriod(week);
  docs.viewsByRange.set(`${week.from}..${week.toExclusive}`, [
    { path: '/guides/rotate-keys/', human: 120, ai: 30, total: 150 },
    { path: '/guides/other', human: 5, ai: 1, total: 6 },
  ]);
  docs.viewsByRange.set(`${before.from}..${before.toExclusive}`, [
    { path: '/guides/rotate-keys', human: 100, ai: 10, total: 110 },
  ]);
  const at = new Date().toISOString();
  docs.health.defaults = {
    searches: [
      { searchQuery: 'rotate <!channel> keys', hits: 14, ctr: 0, topClickedPage: null, lastSearchedAt: at },
      { searchQuery: 'billing export', hits: 9, ctr: 0, topClickedPage: null, lastSearchedAt: at },
    ],
    pages: [{ path: '/guides/rotate-keys', thumbsUp: 3, thumbsDown: 8, code: 0, total: 11 }],
    feedback: [
      {
        ...{
          id: 'f1',
          path: '/guides/rotate-keys',
          comment: 'Step 3 \u202Eis wrong <@U0BOSS>',
          createdAt: at,
        },
        ...{ source: 'contextual', status: 'pending', helpful: false, contact: null },
      },
    ],
    conversations: [],
  };
}

/**
 * Someone pastes `urls` in a message (in `fields.channel`, else #docs): Slack announces it to the fake and
 * sends link_shared (for `teamId`'s install, else the test team's).
 */
export async function paste(
  t: Pick<TestApp, 'slack' | 'event'>,
  urls: string[],
  fields: Json = {},
  teamId?: string,
) {
  const ts = nextMessageTs();
  const channel = typeof fields.channel === 'string' ? fields.channel : CHANNEL;
  const unfurlId = `${channel}.${ts}.${Math.random().toString(16).slice(2)}`;
  t.slack.unfurls.share({ channel, ts, unfurlId, source: 'conversations_history', urls });
  const event = {
    type: 'link_shared',
    channel,
    is_bot_user_member: true,
    user: 'U0ALICE',
    message_ts: ts,
    unfurl_id: unfurlId,
    source: 'conversations_history',
    links: urls.map((url) => ({ url, domain: new URL(url).host })),
    event_ts: ts,
    ...fields,
  };
  expect((await t.event(eventEnvelope(event, undefined, teamId))).status).toBe(200);
  return ts;
}

export const previewOf = (t: Pick<TestApp, 'slack'>, ts: string, url: string, channel = CHANNEL) =>
  waitFor(() => t.slack.unfurls.previewsOf(channel, ts).get(url), { what: `the preview of ${url}` });
/** Pastes `url` until its preview says what `done` looks for (a PR's state moves on in the background). */
export async function previewUntil(t: TestApp, url: string, done: (text: string) => boolean, what: string) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const text = JSON.stringify((await previewOf(t, await paste(t, [url]), url)).blocks);
    if (done(text)) return text;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${text}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
export const viewsReads = (t: Pick<TestApp, 'docs'>) => t.docs.requestsTo('GET', /\/views$/).length;
