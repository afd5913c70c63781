import { expect } from 'vitest';

/** One parsed sample line: `name{a="x",b="y"} value`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const HELP = new RegExp(`^# HELP (${NAME}) \\S.*$`);
const TYPE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);
// Label values: any character but a bare quote, backslash or newline; those three come escaped.
const SAMPLE = new RegExp(
  `^(${NAME})(?:\\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\[\\\\"n])*",?)*)\\})? (\\S+)$`,
);
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"/g;
const SUFFIXES = ['_bucket', '_sum', '_count'];

/**
 * Parses a Prometheus text exposition (format 0.0.4) with its line grammar and the rules a scraper
 * enforces: each family's HELP and TYPE once and before its samples, every sample in a declared family,
 * no series twice, every value a number. Fails the test on the first broken rule.
 */
export function parseExposition(body: string): { samples: Sample[]; families: Map<string, string> } {
  const families = new Map<string, string>();
  const helped = new Set<string>();
  const seen = new Set<string>();
  const samples: Sample[] = [];
  expect(body.endsWith('\n')).toBe(true);
  for (const line of body.slice(0, -1).split('\n')) {
    if (line === '') continue;
    const help = HELP.exec(line);
    if (help) {
      expect(helped.has(help[1] as string), `HELP twice: ${line}`).toBe(false);
      helped.add(help[1] as string);
      continue;
    }
    const type = TYPE.exec(line);
    if (type) {
      expect(families.has(type[1] as string), `TYPE twice: ${line}`).toBe(false);
      families.set(type[1] as string, type[2] as string);
      continue;
    }
    const sample = SAMPLE.exec(line);
    expect(sample, `not a sample line: ${JSON.stringify(line)}`).not.toBeNull();
    const [, name, labelText, valueText] = sample as RegExpExecArray;
    const family = [
      name as string,
      ...SUFFIXES.map((s) => (name as string).replace(new RegExp(`${s}$`), '')),
    ].find((f) => families.has(f));
    expect(family, `sample before its TYPE: ${line}`).toBeDefined();
    // Prometheus reads floats as Go's ParseFloat does: NaN and Inf in any case (prom-client writes `Nan`).
    const special = /^([+-]?)(nan|inf|infinity)$/i.exec(valueText as string);
    const value = special
      ? special[2]?.toLowerCase() === 'nan'
        ? Number.NaN
        : Number(`${special[1]}Infinity`)
      : Number(valueText);
    expect(
      !special && (Number.isNaN(value) || (valueText as string).trim() === ''),
      `bad value: ${line}`,
    ).toBe(false);
    const labels: Record<string, string> = {};
    for (const [, key, raw] of (labelText ?? '').matchAll(LABEL)) labels[key as string] = raw as string;
    const series = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    expect(seen.has(series), `series twice: ${line}`).toBe(false);
    seen.add(series);
    samples.push({ name: name as string, labels, value });
  }
  return { samples, families };
}

/** Samples keyed `name{a="x",b="y"}` (labels as written) for comparing expositions. */
export function seriesValues(samples: readonly Sample[], only: (s: Sample) => boolean = () => true) {
  const out = new Map<string, number>();
  for (const s of samples.filter(only)) {
    const labels = Object.entries(s.labels)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => `${k}="${v}"`)
      .join(',');
    out.set(labels ? `${s.name}{${labels}}` : s.name, s.value);
  }
  return out;
}
