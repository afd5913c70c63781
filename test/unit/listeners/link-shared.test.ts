import { describe, expect, it } from 'vitest';
import { AccessPolicy } from '../../../src/common/access-policy.js';
import { AnalyticsBudgetError } from '../../../src/insights/analytics-source.js';
import { evidenceOf, type PageSnapshot } from '../../../src/insights/page-snapshot/page-snapshot.js';
import { parsePullRequestLink } from '../../../src/jobs/pull-requests/pull-request.js';
import { type PullRequestSummary, seenFrom } from '../../../src/jobs/pull-requests/pull-request-index.js';
import { type LinkSharedArgs, linkShared } from '../../../src/slack/listeners/events/link-shared.js';
import type { UnfurlPayload } from '../../../src/slack/messages/unfurls.js';
import { recordingOutbox } from '../../support/recording-outbox.js';
import { access, CHANNEL, deferredWork, recordingLogger, USER } from './fakes.js';

const SITE = 'https://docs.acme.dev';
const PAGE = `${SITE}/guides/auth`;
const PR = 'https://github.com/acme/docs/pull/3';

const snapshot: PageSnapshot = {
  projectId: 'proj',
  path: '/guides/auth',
  range: { from: '2026-03-01', toExclusive: '2026-03-08' },
  previous: { from: '2026-02-22', toExclusive: '2026-03-01' },
  views: { current: { human: 40, ai: 10 }, previous: { human: 20, ai: 10 } },
  viewsPartial: false,
  thumbsDown: 4,
  thumbsUp: 1,
  comments: ['Outdated'],
  nearbySearches: [{ query: 'auth token', hits: 3 }],
  removed: 0,
  fetchedAt: 0,
};
const summary: PullRequestSummary = {
  kind: 'job',
  ...{ jobId: 'job_1', prLink: PR, requesterId: USER, channelId: CHANNEL, jobStatus: 'completed' },
  ...{ prompt: 'Fix auth', pr: null, followed: false, teamId: 'T0TEAM' },
};

function setup(
  options: {
    pageError?: Error;
    allowed?: { userIds?: string[] };
    guest?: boolean;
    userOrg?: string;
    /** The tenant's external-users setting, read on every check (absent: off). */
    externalUsers?: () => boolean;
  } = {},
) {
  const work = deferredWork();
  const { outbox, sent, settle } = recordingOutbox();
  const { logger } = recordingLogger();
  let reads = 0;
  const handler = linkShared({
    access: options.externalUsers
      ? new AccessPolicy({ channelIds: [], userIds: [], allowExternalUsers: options.externalUsers })
      : access(options.allowed),
    logger,
    afterAck: work.afterAck,
    outbox,
    users: {
      teamOf: async () => 'T0TEAM',
      enterpriseOf: async () => options.userOrg,
      isGuestOrExternal: async () => options.guest === true,
    },
    unfurls: {
      pagePath: (url) => (url.startsWith(SITE) ? new URL(url).pathname : undefined),
      siteName: 'docs.acme.dev',
      pages: {
        forUnfurl: async () => {
          reads += 1;
          if (options.pageError) throw options.pageError;
          return { snapshot, evidence: evidenceOf(snapshot), evidenceId: 'ev_AAAAAAAAAAAAAAAA' };
        },
      },
      projectFor: () => 'proj',
      pullRequests: {
        describe: async (url, where) => {
          const ref = parsePullRequestLink(url, 'https://github.com');
          return url === PR && ref ? seenFrom(summary, ref, where.channelId) : undefined;
        },
      },
    },
  });
  const share = async (
    links: string[],
    event: Partial<LinkSharedArgs['event']> = {},
    context: LinkSharedArgs['context'] = undefined,
  ) => {
    await handler({
      context,
      event: {
        ...{ channel: CHANNEL, user: USER, message_ts: '1.000100', unfurl_id: 'u1', source: 'composer' },
        ...{ links: links.map((url) => ({ url })), ...event },
      },
      body: { team_id: 'T0TEAM' },
    });
    await work.run();
    await settle();
  };
  const payload = () => sent[0]?.payload as UnfurlPayload | undefined;
  return { share, sent, payload, reads: () => reads };
}

describe('link_shared listener', () => {
  it('owes one unfurl with the page numbers and the Fix button, addressed by unfurl_id and source', async () => {
    const s = setup();
    await s.share([PAGE, 'https://example.com/other']);
    expect(s.sent).toHaveLength(1);
    expect(s.sent[0]?.target).toMatchObject({ kind: 'unfurl', unfurlId: 'u1', source: 'composer' });
    const text = JSON.stringify(s.payload()?.unfurls[PAGE]);
    expect(text).toContain('health_fix_page_0');
    expect(text).toContain('ev_AAAAAAAAAAAAAAAA');
    expect(Object.keys(s.payload()?.unfurls ?? {})).toEqual([PAGE]);
    expect(s.payload()?.entities).toHaveLength(1);
  });

  it('previews PRs of our jobs with their state', async () => {
    const s = setup();
    await s.share([PR, 'https://github.com/acme/docs/pull/4']);
    const text = JSON.stringify(s.payload()?.unfurls[PR]);
    expect(text).toContain('job_1');
    expect(text).toContain('Requested by');
    expect(Object.keys(s.payload()?.unfurls ?? {})).toEqual([PR]);
  });

  it('shows a PR’s job, instruction and requester in the job’s own channel only: elsewhere its state', async () => {
    const s = setup();
    await s.share([PR], { channel: 'C0ELSEWHERE' });
    const text = JSON.stringify(s.payload());
    expect(text).toContain('acme/docs#3');
    expect(text).toContain('Opened');
    expect(text).not.toMatch(/job_1|Fix auth|Requested by|U0ALICE/);
    const dm = setup();
    await dm.share([PR], { channel: 'D0ALICE' });
    expect(JSON.stringify(dm.payload())).not.toMatch(/job_1|Fix auth|U0ALICE/);
  });

  it('follows the tenant’s external-users setting as it changes, not the deployment’s', async () => {
    let allowed = true;
    const s = setup({ externalUsers: () => allowed });
    await s.share([PAGE], { user_team: 'T0OTHER' });
    expect(JSON.stringify(s.sent[0]?.payload)).toMatch(/health_fix/);
    allowed = false;
    await s.share([PAGE, PR], { user_team: 'T0OTHER', message_ts: '1.000200', unfurl_id: 'u2' });
    const text = JSON.stringify(s.sent[1]?.payload);
    expect(text).toContain('/guides/auth');
    expect(text).not.toMatch(/Views|health_fix|job_1|Fix auth|Requested by/);
    expect(s.reads()).toBe(1);
  });

  it('reads nothing and owes nothing for a user the access rules exclude, or outside the channel', async () => {
    const denied = setup({ allowed: { userIds: ['U0BOB'] } });
    await denied.share([PAGE]);
    const absent = setup();
    await absent.share([PAGE], { is_bot_user_member: false });
    for (const s of [denied, absent]) {
      expect(s.sent).toHaveLength(0);
      expect(s.reads()).toBe(0);
    }
  });

  it('gives guests and other organisations previews without numbers, reading nothing', async () => {
    const guest = setup({ guest: true });
    await guest.share([PAGE, PR]);
    const external = setup();
    await external.share([PAGE], { user_team: 'T0OTHER' });
    for (const s of [guest, external]) {
      const text = JSON.stringify(s.payload());
      expect(text).not.toMatch(/Views|health_fix|job_1|Requested by/);
      expect(s.reads()).toBe(0);
    }
  });

  it('an org-wide install: a colleague of another workspace of the org gets numbers, an outsider none', async () => {
    const orgWide = { teamId: 'T0TEAM', orgWideEnterpriseId: 'E0ORG' };
    const colleague = setup({ userOrg: 'E0ORG' });
    await colleague.share([PAGE], { user_team: 'T0TWO' }, orgWide);
    expect(JSON.stringify(colleague.payload())).toMatch(/Views/);
    const outsider = setup({ userOrg: 'E0OTHER' });
    await outsider.share([PAGE], { user_team: 'T0OUT' }, orgWide);
    expect(JSON.stringify(outsider.payload())).not.toMatch(/Views/);
    expect(outsider.reads()).toBe(0);
  });

  it('says why the numbers are missing when the budget is used up or the platform failed', async () => {
    const budget = setup({ pageError: new AnalyticsBudgetError(60_000) });
    await budget.share([PAGE]);
    expect(JSON.stringify(budget.payload())).toContain('analytics budget is used up');
    const down = setup({ pageError: new Error('boom') });
    await down.share([PAGE]);
    expect(JSON.stringify(down.payload())).toContain('did not answer');
  });

  it('previews at most 5 links of one message, and ignores payloads without the fields it needs', async () => {
    const s = setup();
    await s.share(Array.from({ length: 9 }, (_, i) => `${PAGE}-${i}`));
    expect(Object.keys(s.payload()?.unfurls ?? {})).toHaveLength(5);
    const bare = setup();
    await bare.share([PAGE], { channel: undefined });
    await bare.share([PAGE], { links: undefined });
    expect(bare.sent).toHaveLength(0);
  });
});
