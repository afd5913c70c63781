import { localDate } from '../../src/insights/ranges/dates.js';
import { waitFor } from './http.js';
import type { TestApp } from './test-app.js';

/** A Block Kit block as a test reads it. */
export type Block = Record<string, unknown> & { type: string };

/** A `data_visualization` block's chart, as the tests read it. */
export interface ChartSpec {
  type?: string;
  series: Array<{ name: string; data: Array<{ label: string; value: number }> }>;
  axis_config: { categories: string[] };
}

/** Today in UTC, as the reports date their days. */
export const utcToday = () => localDate(Date.now(), 'UTC');

/** The report's chart block, if it carries one. */
export const chartOf = (blocks: Block[] | undefined) =>
  (blocks ?? []).find((b) => b.type === 'data_visualization') as
    | (Block & { chart: ChartSpec; title: string })
    | undefined;

/** The background fill has worked off its queue (it logs how many points it read). */
export const chartFillDone = (t: TestApp, timeoutMs = 20_000) =>
  waitFor(() => t.logs.some((l) => l.includes('chart points read in the background')), {
    what: 'the background fill done',
    timeoutMs,
  });
