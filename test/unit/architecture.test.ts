import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..', '..', 'src');
const DEMO = join(import.meta.dirname, '..', '..', 'demo');

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

const inFolder = (file: string, folders: string) =>
  folders.split('|').some((f) => relative(SRC, file).startsWith(`${f}/`));

/** Which folders of src/ may import each outbound library: every library stays at its edge. */
const OWNERS: Array<{ pattern: RegExp; folder: string }> = [
  { pattern: /^@slack\//, folder: 'slack' },
  { pattern: /^undici$/, folder: 'platform' },
  { pattern: /^(keyv|@keyv\/)/, folder: 'state' },
  { pattern: /^(bullmq|@redis\/|redis$)/, folder: 'state' },
  { pattern: /^prom-client$/, folder: 'metrics' },
  { pattern: /^@octokit\//, folder: 'github' },
  { pattern: /^pino/, folder: 'common' },
  // Cron arithmetic: config validates patterns, weekly ranges describe them, the in-process scheduler fires.
  { pattern: /^croner$/, folder: 'insights/ranges|state/memory|common' },
];

/** The capability modules: domain and use cases on their own ports, never an adapter or the edge. */
const CAPABILITIES = ['jobs', 'insights', 'delivery'];
const EDGES = /(^|\/)(slack|state|platform|github|metrics|composition)\//;

describe('architecture', () => {
  const files = sourceFiles(SRC);

  it('finds the source tree', () => {
    expect(files.length).toBeGreaterThan(10);
  });

  it.each(OWNERS)('only src/$folder imports $pattern', ({ pattern, folder }) => {
    const offenders = files
      .filter((file) => !inFolder(file, folder))
      .filter((file) => importsOf(file).some((spec) => pattern.test(spec)))
      .map((file) => relative(SRC, file));
    expect(offenders).toEqual([]);
  });

  it.each(CAPABILITIES)('src/%s depends on its own ports and src/common, not on adapters', (module) => {
    const offenders = files
      .filter((file) => inFolder(file, module))
      .filter((file) => importsOf(file).some((spec) => spec.startsWith('.') && EDGES.test(spec)))
      .map((file) => relative(SRC, file));
    expect(offenders).toEqual([]);
  });

  it('keeps every source file under 300 lines', () => {
    const tooLong = files
      .map((file) => ({ file: relative(SRC, file), lines: readFileSync(file, 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > 300);
    expect(tooLong).toEqual([]);
  });

  it('src/common depends on no module', () => {
    const offenders = files
      .filter((file) => inFolder(file, 'common'))
      .filter((file) => importsOf(file).some((spec) => spec.startsWith('../')))
      .map((file) => relative(SRC, file));
    expect(offenders).toEqual([]);
  });

  it('src/composition reaches state only through the one adapter factory (no memory-vs-Redis wiring)', () => {
    const offenders = files
      .filter((file) => inFolder(file, 'composition'))
      .filter((file) =>
        importsOf(file).some((spec) => /(^|\/)state\//.test(spec) && !spec.endsWith('/state/adapters.js')),
      )
      .map((file) => relative(SRC, file));
    expect(offenders).toEqual([]);
  });

  it('keeps the playground (npm run demo) out of src/, so out of dist/ and the image, and src/ needs none of it', () => {
    expect(existsSync(join(SRC, 'demo'))).toBe(false);
    expect(sourceFiles(DEMO).length).toBeGreaterThan(0);
    const offenders = files
      .filter((file) => importsOf(file).some((spec) => /(^|\/)demo\//.test(spec)))
      .map((file) => relative(SRC, file));
    expect(offenders).toEqual([]);
    const tooLong = sourceFiles(DEMO).filter((file) => readFileSync(file, 'utf8').split('\n').length > 300);
    expect(tooLong).toEqual([]);
  });
});
