import { describe, expect, it, vi } from 'vitest';
import { TenantMetrics } from '../../../src/metrics/tenant-metrics.js';
import { parseExposition } from './exposition.js';

/**
 * Issue 43 §2: a resident tenant's recorder holds no prom-client object of its own. Its counters are built
 * on its first count, and its scrape-time gauges only while the process's exposition reads them (for the
 * shown tenants). Constructions are counted by wrapping prom-client's classes.
 */
const built = vi.hoisted(() => ({ gauges: 0, counters: 0 }));

vi.mock('prom-client', async (importOriginal) => {
  const original = await importOriginal<typeof import('prom-client')>();
  class CountedGauge<T extends string> extends original.Gauge<T> {
    constructor(...args: ConstructorParameters<typeof original.Gauge<T>>) {
      super(...args);
      built.gauges += 1;
    }
  }
  class CountedCounter<T extends string> extends original.Counter<T> {
    constructor(...args: ConstructorParameters<typeof original.Counter<T>>) {
      super(...args);
      built.counters += 1;
    }
  }
  return { ...original, Gauge: CountedGauge, Counter: CountedCounter };
});

describe("a tenant's recorder", () => {
  it('builds no Gauge or Counter while its tenant is resident and quiet; a scrape still reads its gauges', async () => {
    const tenants = new TenantMetrics({ defaultMetrics: false, topTenants: 2 });
    const before = { ...built };
    for (let i = 0; i < 50; i++) {
      tenants.loaded();
      tenants.forTenant(`T${i}`).setSources({ watchedJobs: async () => [{ status: 'running' }] });
    }
    expect(built).toEqual(before);

    tenants.forTenant('T7').jobStarted('started'); // one count: that one counter
    expect(built).toEqual({ ...before, counters: before.counters + 1 });

    const { samples } = parseExposition((await tenants.render()).body);
    const watched = samples.find(
      (s) => s.name === 'docs_agent_watched_jobs' && s.labels.status === 'running',
    );
    expect(watched?.value).toBe(2); // the two shown tenants' stores were read
  });
});
