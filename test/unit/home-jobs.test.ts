import { describe, expect, it } from 'vitest';
import { type JobRecord, newJobRecord } from '../../src/jobs/domain/job.js';
import { appHomeView } from '../../src/slack/messages/app-home.js';
import {
  HOME_JOB_MENU_ACTION,
  homeJobBlocks,
  homeStopValue,
  parseHomeStopValue,
} from '../../src/slack/messages/home-jobs.js';
import type { ShownConnection } from '../../src/slack/messages/project-settings.js';
import { checkView } from '../support/fake-slack-surfaces.js';

const NOW = Date.parse('2026-11-21T10:00:00Z');
const PAGE = (job: JobRecord) => `https://dashboard.example.com/jobs/${job.jobId}`;

function job(i: number, overrides: Partial<JobRecord> = {}): JobRecord {
  return {
    ...newJobRecord(
      {
        jobId: `job_${i}`,
        teamId: 'T0TEAM',
        channelId: 'C0DOCS',
        threadTs: `1700000000.00${i}`,
        cardTs: `1700000000.00${i}`,
        requesterId: 'U0ALICE',
        prompt: `Job number ${i}`,
        origin: 'command',
        status: 'active',
        repository: null,
        ref: null,
        model: null,
        prLink: null,
      },
      NOW - i * 60_000,
    ),
    ...overrides,
  };
}

type Menu = { action_id: string; options: { text: { text: string }; value: string; url?: string }[] };
const menus = (blocks: unknown[]): Menu[] =>
  blocks.flatMap((b) => {
    const accessory = (b as { accessory?: Menu & { type: string } }).accessory;
    return accessory?.type === 'overflow' ? [accessory] : [];
  });
const ended = (i: number) =>
  job(i, { status: 'completed', watching: false, prLink: 'https://github.com/a/b/pull/1' });

describe('Home as a dashboard: jobs', () => {
  it('shows running jobs, then the last 10 that ended, each with its ⋯ menu', () => {
    const jobs = [job(1), job(2), ...Array.from({ length: 14 }, (_, i) => ended(10 + i))];
    const blocks = homeJobBlocks({ userId: 'U0ALICE', jobs });
    const all = JSON.stringify(blocks);
    expect(all.indexOf('Running now* (2)')).toBeLessThan(all.indexOf('Your latest jobs'));
    expect(all).toContain('Job number 1');
    expect(all).toContain('Job number 19');
    expect(all).not.toContain('Job number 20'); // the 11th that ended
    expect(menus(blocks)).toHaveLength(12);
    expect(menus(blocks).every((m) => m.action_id === HOME_JOB_MENU_ACTION)).toBe(true);
  });

  it('offers Open thread (a link) and Stop following while followed; no dashboard without the pattern', () => {
    const [running, done] = menus(homeJobBlocks({ userId: 'U0ALICE', jobs: [job(1), ended(2)] }));
    expect(running!.options.map((o) => o.text.text)).toEqual(['Open thread', 'Stop following']);
    expect(running!.options[0]!.url).toBe('https://slack.com/archives/C0DOCS/p1700000000001');
    expect(parseHomeStopValue(running!.options[1]!.value)).toBe('job_1');
    expect(done!.options.map((o) => o.text.text)).toEqual(['Open thread']);
  });

  it('adds Open in dashboard when the job page pattern is set', () => {
    const [running, done] = menus(
      homeJobBlocks({ userId: 'U0ALICE', jobs: [job(1), ended(2)], jobPage: PAGE }),
    );
    expect(running!.options.map((o) => [o.text.text, o.url])).toEqual([
      ['Open thread', 'https://slack.com/archives/C0DOCS/p1700000000001'],
      ['Open in dashboard', 'https://dashboard.example.com/jobs/job_1'],
      ['Stop following', undefined],
    ]);
    expect(done!.options.map((o) => o.text.text)).toEqual(['Open thread', 'Open in dashboard']);
  });

  it('reads a Stop following value as a plain job id only', () => {
    expect(homeStopValue('job_1')).toBe('stop:job_1');
    expect(homeStopValue('job 1 <!channel>')).toBeUndefined();
    expect(parseHomeStopValue('stop:job_1')).toBe('job_1');
    expect(parseHomeStopValue('stop:')).toBeUndefined();
    expect(parseHomeStopValue('stop:a b')).toBeUndefined();
    expect(parseHomeStopValue('thread')).toBeUndefined();
    expect(parseHomeStopValue(undefined)).toBeUndefined();
  });

  it('says the usage this hour in words', () => {
    const view = appHomeView({ userId: 'U0ALICE', jobs: [], schedules: [], usage: { used: 3, limit: 20 } });
    expect(JSON.stringify(view)).toContain('*Usage this hour*\\n3 of 20 agent jobs this hour');
    const none = appHomeView({ userId: 'U0ALICE', jobs: [], schedules: [] });
    expect(JSON.stringify(none)).not.toContain('Usage this hour');
  });

  it('stays within 100 blocks with running and ended jobs, schedules, budgets and a long settings section', () => {
    const connection = (i: number): ShownConnection => ({
      projectId: `proj_${i}`,
      channelId: `C${String(i).padStart(6, '0')}`,
      connectedBy: 'U0ALICE',
      connectedAt: NOW,
      maskedKey: 'svc_…abcd',
    });
    const view = appHomeView({
      userId: 'U0ALICE',
      jobs: [
        ...Array.from({ length: 30 }, (_, i) => job(i)),
        ...Array.from({ length: 30 }, (_, i) => ended(100 + i)),
      ],
      schedules: Array.from({ length: 80 }, (_, i) => ({
        channelId: `C${String(i).padStart(6, '0')}`,
        cron: '0 9 * * 1',
        timeZone: 'Europe/Berlin',
      })),
      alerts: [{ channelId: 'C0DOCS', sensitivity: 'normal' }],
      feedback: { month: '2026-11', rated: 4, useful: 3 },
      budgets: Array.from({ length: 30 }, (_, i) => ({ label: `Budget ${i}`, left: 2, limit: 5 })),
      usage: { used: 3, limit: 20 },
      jobPage: PAGE,
      settings: {
        manage: true,
        connections: Array.from({ length: 40 }, (_, i) => connection(i)),
        installerUserId: 'U0ALICE',
        managers: { added: ['U0BOB'], externalUsers: false, externalUsersChosen: false },
      },
    });
    expect(view.blocks.length).toBeLessThanOrEqual(100);
    expect(checkView(view, 'home')).toEqual({ ok: true });
    const all = JSON.stringify(view);
    // Nothing cut off at the end: the settings and the budgets are still there.
    expect(all).toContain('Connect a project');
    expect(all).toContain('Budgets this hour');
    // Each job's menu, and each weekly post's and alert channel's (issue 46 §5) within their caps.
    const byAction = (id: string) =>
      menus(view.blocks).filter((m) => (m as { action_id?: string }).action_id === id);
    expect(byAction('home_job_menu')).toHaveLength(20);
    expect(byAction('home_weekly_menu')).toHaveLength(20);
    expect(byAction('home_alert_menu')).toHaveLength(1);
  });
});
