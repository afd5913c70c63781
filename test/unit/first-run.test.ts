import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../../src/jobs/domain/job.js';
import { type AppHomeInput, appHomeView } from '../../src/slack/messages/app-home.js';
import type { HomeSettings } from '../../src/slack/messages/project-settings.js';

const connection = {
  projectId: 'proj_1',
  channelId: undefined,
  connectedBy: 'U0ADMIN',
  connectedAt: 0,
  maskedKey: 'svc_…abcd',
};
const manager: HomeSettings = { manage: true, connections: [], installerUserId: 'U0ADMIN' };
const base: AppHomeInput = { userId: 'U0ADMIN', jobs: [], schedules: [], budgets: [], settings: manager };
const text = (input: AppHomeInput) => JSON.stringify(appHomeView(input).blocks);

describe('the first-run checklist on Home', () => {
  it('shows a manager of a fresh install the three first steps, right under New job', () => {
    const blocks = appHomeView(base).blocks;
    expect(JSON.stringify(blocks[1])).toContain('New job');
    const first = JSON.stringify(blocks[2]);
    expect(first).toContain('Get started* (0 of 3 done)');
    for (const step of ['Connect a docs project', 'Start a job', 'Schedule a weekly report'])
      expect(first).toContain(step);
    expect(first).toContain('/docs-agent &lt;instruction&gt;');
    expect(first.match(/white_large_square/g)).toHaveLength(3);
  });

  it('ticks each step from what Home knows, and is gone once all three are done', () => {
    const connected = { ...base, settings: { ...manager, connections: [connection] } };
    expect(text(connected)).toContain('(1 of 3 done)');
    expect(text(connected)).toContain(':white_check_mark: *Connect a docs project*');
    const withJob = { ...connected, jobs: [{ jobId: 'j1' } as unknown as JobRecord] };
    expect(text(withJob)).toContain('(2 of 3 done)');
    const all = { ...withJob, schedules: [{ channelId: 'C1', cron: '0 9 * * 1', timeZone: 'UTC' }] };
    expect(text(all)).not.toContain('Get started');
  });

  it('is not shown to members, nor in single-workspace mode (no settings)', () => {
    expect(text({ ...base, settings: { ...manager, manage: false } })).not.toContain('Get started');
    const { settings: _settings, ...single } = base;
    expect(text(single)).not.toContain('Get started');
  });
});
