import type { ModalView } from '@slack/types';
import { describe, expect, it, vi } from 'vitest';
import { AppError } from '../../../src/common/errors.js';
import type { PageViewsReport } from '../../../src/insights/page-views/report.js';
import { homeReport } from '../../../src/slack/listeners/actions/home-reports.js';
import { access, deferredWork, recordingLogger, USER } from './fakes.js';
import { pageViewsFakes, REPORT } from './page-views-fixtures.js';

const days = Array.from({ length: 7 }, (_, i) => ({
  from: `2026-11-${String(16 + i).padStart(2, '0')}`,
  toExclusive: `2026-11-${String(17 + i).padStart(2, '0')}`,
}));
/** The report with its chart: the modal carries a `data_visualization` block. */
const CHARTED: PageViewsReport = {
  ...REPORT,
  trend: { current: { buckets: days, human: [5, 6, 7, 8, 9, 10, 11], ai: [1, 2, 3, 4, 5, 6, 7] } },
};

function click(actionId: string, update: (args: { view_id: string; view: ModalView }) => Promise<unknown>) {
  const open = vi.fn(async (_: { trigger_id: string; view: ModalView }) => ({ view: { id: 'V0MODAL' } }));
  const args = {
    ack: vi.fn(async () => undefined),
    body: { trigger_id: 'trigger', user: { id: USER } },
    action: { action_id: actionId },
    client: { views: { open, update: vi.fn(update) } },
  };
  return { args, open, update: args.client.views.update };
}

function deps(report: () => Promise<PageViewsReport>) {
  const { pageViews, analytics } = pageViewsFakes();
  analytics.report.mockImplementation(report);
  const work = deferredWork();
  return {
    deps: { access: access(), logger: recordingLogger().logger, pageViews, afterAck: work.afterAck },
    work,
  };
}

const hasChart = (view: ModalView) => view.blocks.some((b) => b.type === 'data_visualization');

describe('homeReport (Views and Health on Home)', () => {
  it('opens the loading modal first, then updates it with the report and its chart', async () => {
    const { deps: d, work } = deps(async () => CHARTED);
    const { args, open, update } = click('home_views', async () => ({ ok: true }));
    await homeReport(d)(args);
    expect(JSON.stringify(open.mock.calls[0]![0].view)).toContain("Reading this week's page views…");
    expect(update).not.toHaveBeenCalled(); // the report comes after the acknowledgement
    await work.run();
    expect(update).toHaveBeenCalledTimes(1);
    expect(update.mock.calls[0]![0].view_id).toBe('V0MODAL');
    expect(hasChart(update.mock.calls[0]![0].view)).toBe(true);
  });

  it('sends the report again without its chart where Slack refuses the chart block', async () => {
    const { deps: d, work } = deps(async () => CHARTED);
    const refused = Object.assign(new Error('An API error occurred: invalid_arguments'), {
      data: { ok: false, error: 'invalid_arguments' },
    });
    const { args, update } = click('home_views', async ({ view }) => {
      if (hasChart(view)) throw refused;
      return { ok: true };
    });
    await homeReport(d)(args);
    await work.run();
    expect(update).toHaveBeenCalledTimes(2);
    const shown = update.mock.calls[1]![0].view;
    expect(hasChart(shown)).toBe(false);
    expect(JSON.stringify(shown)).toContain('/api/jobs');
  });

  it('shows a spent budget in words with when to try again', async () => {
    const { deps: d, work } = deps(async () => {
      throw Object.assign(new AppError('analytics_budget_exhausted', 'spent'), { retryAfterMs: 600_000 });
    });
    const { args, update } = click('home_views', async () => ({ ok: true }));
    await homeReport(d)(args);
    await work.run();
    const text = JSON.stringify(update.mock.calls[0]![0].view);
    expect(text).toContain('analytics budget');
    expect(text).not.toContain('analytics_budget_exhausted');
  });

  it('says Health is not set up, at once, when the app has no docs-health reports', async () => {
    const { deps: d, work } = deps(async () => REPORT);
    const { args, open, update } = click('home_health', async () => ({ ok: true }));
    await homeReport(d)(args);
    await work.run();
    expect(JSON.stringify(open.mock.calls[0]![0].view)).toContain('Docs-health reports are not set up');
    expect(update).not.toHaveBeenCalled();
  });
});
