import { Counter } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { Metrics } from '../../../src/metrics/metrics.js';
import { TenantMetrics } from '../../../src/metrics/tenant-metrics.js';
import { parseExposition } from './exposition.js';

/**
 * Issue 43 §2: a resident tenant's recorder holds no prom-client object of its own. Its counters are built
 * on its first count, and its scrape-time gauges only while they are read (the process's exposition reads
 * the shown tenants'), never kept: each read gets new ones.
 */
describe("a tenant's recorder", () => {
  it('keeps no Gauge or Counter while its tenant is resident and quiet; a scrape still reads its gauges', async () => {
    const tenants = new TenantMetrics({ defaultMetrics: false, topTenants: 2 });
    const recorders: Metrics[] = [];
    for (let i = 0; i < 50; i++) {
      tenants.loaded('work');
      const recorder = tenants.forTenant(`T${i}`);
      recorder.setSources({ watchedJobs: async () => [{ status: 'running' }] });
      recorders.push(recorder);
    }
    for (const recorder of recorders) {
      expect(recorder.countersBuilt()).toEqual([]);
      const [first, again] = [recorder.scrapeGauges(), recorder.scrapeGauges()];
      expect(first).toHaveLength(3);
      for (const [i, gauge] of first.entries()) expect(again[i]).not.toBe(gauge);
    }
    recorders[7]!.jobStarted('started'); // one count: that one counter
    recorders[8]!.jobStarted('started');
    recorders[8]!.jobStarted('started');
    recorders[8]!.jobStarted('create_failed');
    expect(recorders[7]!.countersBuilt()).toHaveLength(1);
    // Its counts alone, no prom-client Counter (about 0.4 KB each) kept for as long as the tenant stays.
    expect(recorders[7]!.countersBuilt()[0]).not.toBeInstanceOf(Counter);

    const { samples } = parseExposition((await tenants.render()).body);
    const starts = (outcome: string) =>
      samples.find((s) => s.name === 'docs_agent_job_starts_total' && s.labels.outcome === outcome)?.value;
    expect([starts('started'), starts('create_failed')]).toEqual([3, 1]);
    const watched = samples.find(
      (s) => s.name === 'docs_agent_watched_jobs' && s.labels.status === 'running',
    );
    expect(watched?.value).toBe(2); // the two shown tenants' stores were read
  });

  it('a single-workspace recorder keeps its gauges in its registry', () => {
    const single = new Metrics({ defaultMetrics: false });
    expect(single.scrapeGauges()).toEqual(single.scrapeGauges());
    expect(single.scrapeGauges()[0]).toBe(single.scrapeGauges()[0]);
  });
});
