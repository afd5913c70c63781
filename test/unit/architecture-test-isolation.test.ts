import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ISOLATED_INTEGRATION_FILES, NEEDS_ISOLATION } from '../support/isolated-test-files.js';

const ROOT = join(import.meta.dirname, '..', '..');
const filesIn = (dir: string) =>
  readdirSync(join(ROOT, dir))
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => `${dir}/${name}`);

describe('architecture: integration files that share a worker’s modules', () => {
  it('lists every file that mocks a module or spies on a global as isolated, and only those', () => {
    const files = [...filesIn('test/integration'), ...filesIn('test/drills')];
    const needing = files.filter((file) => NEEDS_ISOLATION.test(readFileSync(join(ROOT, file), 'utf8')));
    expect(needing.length).toBeGreaterThan(0);
    expect([...ISOLATED_INTEGRATION_FILES].sort()).toEqual(needing.sort());
    expect(relative(ROOT, join(ROOT, ISOLATED_INTEGRATION_FILES[0]!))).toMatch(/^test\/integration\//);
  });
});
