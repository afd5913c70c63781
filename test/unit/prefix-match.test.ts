import { describe, expect, it } from 'vitest';
import { startsWithLowered, toCsv } from '../../src/insights/page-views/report.js';

// Paths and prefixes where lowering is not one ASCII letter for one: case, length changes (İ), context (Σ).
const PATHS = [
  '/Docs/API',
  '/docs/api/x',
  '/DOCS',
  '/do',
  '',
  '/İstanbul',
  '/i̇stanbul',
  '/ΟΔΟΣ/a',
  '/straße',
  '/Z[',
  '/@`',
];
const PREFIXES = [
  '/docs',
  '/docs/api',
  '/DOCS/Api',
  '/',
  '/i̇',
  '/İ',
  '/οδος',
  '/οδοσ',
  '/STRASSE',
  '/straße',
  '/z[',
  '/@`',
  '/{',
];

describe('prefix matching of page paths (issue 43: no copy of each path)', () => {
  it('answers as path.toLowerCase().startsWith(prefix.toLowerCase()) for every pair', () => {
    for (const path of PATHS)
      for (const prefix of PREFIXES) {
        const lowered = prefix.toLowerCase();
        expect([path, prefix, startsWithLowered(path, lowered)]).toEqual([
          path,
          prefix,
          path.toLowerCase().startsWith(lowered),
        ]);
      }
  });

  it('filters the CSV the same way', () => {
    const pages = PATHS.map((path) => ({ path, total: 1, human: 1, ai: 0 }));
    expect(toCsv(pages, '/DOCS').split('\r\n').slice(1, -1)).toEqual([
      '1,/Docs/API,1,1,0',
      '2,/docs/api/x,1,1,0',
      '3,/DOCS,1,1,0',
    ]);
  });
});
