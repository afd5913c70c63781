import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..', '..', 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [
    ...text.matchAll(/(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((m) => m[1] ?? m[2] ?? '');
}

/** Which folders of src/ may import each outbound library. */
const OWNERS: Array<{ pattern: RegExp; folder: string }> = [
  { pattern: /^@slack\//, folder: 'slack' },
  { pattern: /^undici$/, folder: 'api' },
  { pattern: /^(keyv|@keyv\/)/, folder: 'store' },
  { pattern: /^prom-client$/, folder: 'metrics' },
  { pattern: /^(bullmq|@redis\/|redis$)/, folder: 'store|scheduler' },
];

describe('architecture', () => {
  const files = sourceFiles(SRC);

  it('finds the source tree', () => {
    expect(files.length).toBeGreaterThan(10);
  });

  it.each(OWNERS)('only src/$folder imports $pattern', ({ pattern, folder }) => {
    const offenders = files
      .filter((file) => !folder.split('|').some((f) => relative(SRC, file).startsWith(`${f}/`)))
      .filter((file) => importsOf(file).some((spec) => pattern.test(spec)))
      .map((file) => relative(SRC, file));
    expect(offenders).toEqual([]);
  });

  it('services depend on ports, not on adapters', () => {
    const offenders = files
      .filter((file) => relative(SRC, file).startsWith('services/'))
      .filter((file) =>
        importsOf(file).some(
          (spec) => /\/(slack|store|scheduler)\//.test(spec) || /^\.\.\/(slack|store|scheduler)\//.test(spec),
        ),
      )
      .map((file) => relative(SRC, file));
    expect(offenders).toEqual([]);
  });
});
