import { describe, expect, it } from 'vitest';
import { type JobRecord, newJobRecord } from '../../src/jobs/domain/job.js';
import { appHomeView, channelLink, HOME_NEW_JOB_ACTION } from '../../src/slack/messages/app-home.js';
import { checkView } from '../support/fake-slack-surfaces.js';

const NOW = Date.parse('2026-11-21T10:00:00Z');
const HOSTILE = '<!channel> <@U0EVIL> *bold* `code` <https://evil.example|click> &amp; |'.repeat(80);

function job(i: number, overrides: Partial<JobRecord> = {}): JobRecord {
  return {
    ...newJobRecord(
      {
        jobId: `job_${i}`,
        teamId: 'T0TEAM',
        channelId: 'C0DOCS',
        threadTs: `1.${i}`,
        cardTs: `1.${i}`,
        requesterId: 'U0ALICE',
        prompt: `${i} ${HOSTILE}`,
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

const text = (view: unknown) => JSON.stringify(view);

describe('appHomeView', () => {
  it('lists only the user own jobs, newest first, with card status words and links', () => {
    const view = appHomeView({
      userId: 'U0ALICE',
      jobs: [
        job(3, { status: 'failed' }),
        job(1, { status: 'completed', prLink: 'https://github.com/acme/docs/pull/7' }),
        job(2, { requesterId: 'U0BOB', prompt: 'bob secret plan' }),
      ],
      schedules: [],
      budgets: [],
    });
    expect(checkView(view, 'home')).toEqual({ ok: true });
    const all = text(view);
    expect(all).not.toContain('bob secret plan');
    expect(all.indexOf('Done: pull request opened')).toBeLessThan(
      all.indexOf(':warning: *Failed: the agent stopped with an error*'),
    );
    expect(all).toContain('<https://github.com/acme/docs/pull/7|pull request>');
    // The thread itself (its root message, as `/docs-agent list` links it), not just the channel.
    expect(all).toMatch(/<https:\/\/slack\.com\/archives\/C0DOCS\/p\d+\|thread>/);
    expect(all).toMatch(/<!date\^\d+\^\{date_short\} at \{time\}\|21 Nov 2026 09:59 UTC>/);
    expect(all).not.toContain('<!channel>');
    expect(all).toContain(`"action_id":"${HOME_NEW_JOB_ACTION}"`);
  });

  it('shows empty states', () => {
    const view = appHomeView({ userId: 'U0ALICE', jobs: [], schedules: [], budgets: [] });
    expect(checkView(view, 'home')).toEqual({ ok: true });
    expect(text(view)).toContain('You have not started a job yet');
    expect(text(view)).toContain('None yet. Add one to post a report in a channel every week.');
    expect(text(view)).toContain('No hourly limits are set.');
  });

  it('stays within 100 blocks with "and N more" for many jobs and schedules', () => {
    const jobs = Array.from({ length: 500 }, (_, i) => job(i));
    const schedules = Array.from({ length: 80 }, (_, i) => ({
      channelId: `C${String(i).padStart(6, '0')}`,
      cron: '0 9 * * 1',
      timeZone: 'Europe/Berlin',
      nextRunAt: NOW + 86_400_000,
      projectId: 'proj_a',
    }));
    const budgets = Array.from({ length: 30 }, (_, i) => ({
      label: `Budget ${i} ${HOSTILE}`,
      left: 2,
      limit: 5,
    }));
    const view = appHomeView({ userId: 'U0ALICE', jobs, schedules, budgets });
    expect(view.blocks.length).toBeLessThanOrEqual(100);
    expect(checkView(view, 'home')).toEqual({ ok: true });
    expect(text(view)).toContain('…and 490 more running');
    expect(text(view)).toContain('…and 60 more');
    expect(text(view)).not.toContain('proj_');
    expect(text(view)).toContain('> 0 &lt;!channel&gt;');
  });

  it('states budgets left, never below zero, with when more is available', () => {
    const view = appHomeView({
      userId: 'U0ALICE',
      jobs: [],
      schedules: [],
      budgets: [
        { label: 'Agent jobs in proj_a', left: 3, limit: 10 },
        { label: 'Page-view queries', left: -2, limit: 30, resetsAt: NOW + 600_000 },
      ],
    });
    expect(text(view)).toContain('Agent jobs in proj_a: *3* of 10 left');
    expect(text(view)).toContain('Page-view queries: *0* of 30 left · more from <!date^');
  });

  it('links channels through app_redirect, not a permalink', () => {
    expect(channelLink('C0DOCS')).toBe('https://slack.com/app_redirect?channel=C0DOCS');
  });
});
