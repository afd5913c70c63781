import { Counter } from 'prom-client';
import type { MetricJson } from './tenant-view.js';

/** What the exposition reads of a counter: its values as prom-client's `get()` gives them. */
export interface CounterRead {
  get(): Promise<MetricJson>;
}

/**
 * A tenant recorder's counter (OAuth mode): its counts by label set and nothing else. A prom-client Counter
 * costs about 0.4 KB before its first count (label-name arrays, maps, exemplar defaults), and a tenant that
 * ran one job counts with four or five of them for as long as it stays resident (issue 43 §2). The process's
 * exposition reads it as it read a Counter (`get()`), and sums it the same way.
 */
export class TenantCount implements CounterRead {
  /**
   * A handful of label sets per tenant: an array, searched, costs less than a Map's table; copied on a new
   * label set (rare) so its store is exactly its length, not a pushed array's 17 slots.
   */
  private values: ReadonlyArray<{ labels: Record<string, string>; value: number }> = [];

  constructor(private readonly spec: { name: string; help: string; labelNames: readonly string[] }) {}

  inc(labels: Record<string, string>): void {
    const found = this.values.find((v) => sameLabels(v.labels, labels));
    if (found) found.value += 1;
    // concat, not a spread: a spread array gets a pushed array's slack (187 bytes for one entry, 64 here).
    else this.values = this.values.concat([{ labels: { ...labels }, value: 1 }]);
  }

  async get(): Promise<MetricJson> {
    const { name, help } = this.spec;
    const values = this.values.map((v) => ({ labels: { ...v.labels }, value: v.value }));
    // prom-client's own shape (its type is the string 'counter' at run time, an enum in its typings).
    return { name, help, type: 'counter', values, aggregator: 'sum' } as unknown as MetricJson;
  }

  /** A prom-client Counter holding the same counts, for a registry made for one read. */
  toCounter(): Counter<string> {
    const { name, help, labelNames } = this.spec;
    const counter = new Counter({ name, help, labelNames: [...labelNames], registers: [] });
    for (const v of this.values) counter.inc(v.labels, v.value);
    return counter;
  }
}

function sameLabels(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}
