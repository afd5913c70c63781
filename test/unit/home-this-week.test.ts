import { describe, expect, it } from 'vitest';
import type { PageEvidence, SearchEvidence } from '../../src/insights/health/evidence.js';
import { type JobRecord, newJobRecord } from '../../src/jobs/domain/job.js';
import { type AppHomeInput, appHomeView, HOME_LIMITS } from '../../src/slack/messages/app-home.js';
import {
  HOME_FIX_ACTION,
  HOME_HEALTH_ACTION,
  HOME_VIEWS_ACTION,
  homeThisWeekBlocks,
} from '../../src/slack/messages/home-this-week.js';
import { HOME_SETTINGS_ACTION } from '../../src/slack/messages/project-settings.js';
import { checkView } from '../support/fake-slack-surfaces.js';

const NOW = Date.parse('2026-12-07T10:00:00Z');
const HOSTILE = '<!channel> <@U0EVIL> *bold* `code` <https://evil.example|click> &amp; |';
const RANGE = { from: '2026-11-30', toExclusive: '2026-12-07' };
const search: SearchEvidence = {
  kind: 'search',
  query: `sso setup ${HOSTILE}`,
  hits: 40,
  ctr: 0,
  share: 0.1,
  range: RANGE,
};
const page: PageEvidence = {
  kind: 'page',
  path: '/guides/sso',
  thumbsDown: 3,
  thumbsUp: 0,
  comments: [],
  range: RANGE,
};

function job(i: number, running: boolean): JobRecord {
  return newJobRecord(
    {
      ...{ jobId: `job_${i}`, teamId: 'T0TEAM', channelId: 'C0DOCS', threadTs: `1.${i}`, cardTs: `1.${i}` },
      ...{ requesterId: 'U0ALICE', prompt: `job ${i}`, origin: 'command', repository: null, ref: null },
      ...{ status: running ? 'active' : 'completed', model: null, prLink: null },
    },
    NOW - i * 60_000,
  );
}

/** Everything Home can show, each section at its cap. */
function fullHome(thisWeek: AppHomeInput['thisWeek']): AppHomeInput {
  const many = (n: number) => Array.from({ length: n }, (_, i) => `C${String(i).padStart(6, '0')}`);
  return {
    userId: 'U0ALICE',
    jobs: Array.from({ length: 100 }, (_, i) => job(i, i % 2 === 0)),
    schedules: many(80).map((channelId) => ({
      channelId,
      cron: '0 9 * * 1',
      timeZone: 'Europe/Berlin',
      kind: 'Page views',
    })),
    alerts: many(80).map((channelId) => ({ channelId, sensitivity: 'normal' })),
    budgets: Array.from({ length: 30 }, (_, i) => ({ label: `Budget ${i}`, left: 2, limit: 5 })),
    feedback: { month: '2026-12', useful: 3, rated: 4 },
    usage: { used: 3, limit: 20 },
    settings: {
      manage: true,
      installerUserId: 'U0ALICE',
      connections: many(20).map((channelId) => ({
        ...{
          projectId: 'proj_a',
          channelId,
          connectedBy: 'U0ALICE',
          connectedAt: NOW,
          maskedKey: 'svc_…abcd',
        },
      })),
      managers: { added: ['U0BOB'], externalUsers: false, externalUsersChosen: false },
    },
    thisWeek,
  };
}

const text = (value: unknown) => JSON.stringify(value);

describe('Home as a dashboard', () => {
  it('has [New job] [Views] [Health] [Settings] in one actions block at the top', () => {
    const view = appHomeView(fullHome(undefined));
    const actions = view.blocks.filter((b) => b.type === 'actions');
    const ids = (actions[0] as { elements: { action_id: string }[] }).elements.map((e) => e.action_id);
    expect(ids).toEqual(['home_new_job', HOME_VIEWS_ACTION, HOME_HEALTH_ACTION, HOME_SETTINGS_ACTION]);
  });

  it('keeps every section within 100 blocks when each is at its cap, "This week" included', () => {
    const thisWeek = {
      views: {
        current: { total: 1234, human: 900, ai: 334 },
        previous: { total: 1000, human: 800, ai: 200 },
      },
      health: { gap: { evidence: search, value: 'ev_abc' } },
    };
    const view = appHomeView(fullHome(thisWeek));
    expect(checkView(view, 'home')).toEqual({ ok: true });
    const all = text(view);
    // Nothing cut off the end: the last section (the managers' budgets) is there, and so is "This week".
    expect(view.blocks.length).toBeLessThanOrEqual(HOME_LIMITS.blocks);
    expect(all).toContain('Budgets this hour');
    expect(all).toContain('This week in your docs');
    expect(all).toContain(HOME_FIX_ACTION);
  });
});

describe('homeThisWeekBlocks', () => {
  it('says the week in one headline and the top gap in readers words, with Fix', () => {
    const blocks = homeThisWeekBlocks({
      views: {
        current: { total: 1234, human: 900, ai: 334 },
        previous: { total: 1000, human: 800, ai: 200 },
      },
      health: { gap: { evidence: search, value: 'ev_abc' } },
    });
    const all = text(blocks);
    expect(all).toContain(
      '*1,234 views* in the last 7 days, ▲ 23% on the week before: 900 by people, 334 by AI (27%).',
    );
    expect(all).toContain('*40 searches* with no useful result');
    expect(all).not.toContain('<!channel>');
    expect(all).not.toContain('<https://evil.example');
    expect(all).toContain(`"action_id":"${HOME_FIX_ACTION}"`);
  });

  it('shows the job instead of Fix when the gap is being fixed', () => {
    const blocks = homeThisWeekBlocks({
      health: {
        gap: {
          evidence: page,
          value: 'ev_abc',
          running: { channelId: 'C0DOCS', threadTs: '1.5', cardTs: '1.5' },
        },
      },
    });
    const all = text(blocks);
    expect(all).toContain('*3 readers flagged this page* 👎');
    expect(all).toContain('🛠 Being fixed · <https://slack.com/archives/C0DOCS/p15|its thread>');
    expect(all).not.toContain(HOME_FIX_ACTION);
  });

  it('says so in one line when nothing is cached, pointing at Health', () => {
    expect(text(homeThisWeekBlocks({}))).toContain(
      "Nothing read yet this week. Press *Health* above for this week's report.",
    );
    expect(text(homeThisWeekBlocks({ filling: true }))).toContain('they show here next time you open Home');
    expect(homeThisWeekBlocks(undefined)).toEqual([]);
  });
});
