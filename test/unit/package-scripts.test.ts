import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/*
 * `npm run test:fast` runs test/unit only, promised to start no process and no Redis: no unit test may reach
 * (through its own imports or a support helper's) the helpers that spawn them, nor child_process itself.
 */

const ROOT = join(import.meta.dirname, '..', '..');
const SPAWNING = ['test/support/redis-server.ts', 'test/support/bot-process.ts'];
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'([^']+)'/g;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** The test-side files a file reaches through relative imports (src/ is the product, not a test helper). */
function reachedFrom(start: string): { files: Set<string>; builtins: Set<string> } {
  const files = new Set<string>();
  const builtins = new Set<string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      if (!specifier) continue;
      if (specifier.startsWith('node:')) builtins.add(specifier);
      if (!specifier.startsWith('.')) continue;
      const target = resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));
      if (relative(ROOT, target).startsWith('test')) queue.push(target);
    }
  }
  return { files, builtins };
}

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

describe('npm start', () => {
  it('runs what is built: no compile on every start, the build runs on npm ci (prepare)', () => {
    expect(pkg.scripts.start).toBe('node dist/main.js');
    expect(pkg.scripts.prestart).toBeUndefined();
    expect(pkg.scripts.prepare).toBe('npm run build');
    expect(pkg.scripts.dev).toMatch(/^tsx watch /);
  });

  it('follows the supported Node lines, 22 and 24, as the README says', () => {
    expect(pkg.engines.node).toBe('>=22');
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain('Node.js 22 or 24');
  });

  it('keeps the image build working: its npm ci runs before the sources are there, so no prepare', () => {
    const installs = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').match(/npm ci[^\n]*/g) ?? [];
    expect(installs.length).toBe(2);
    for (const install of installs) expect(install).toContain('--ignore-scripts');
  });
});

describe('the set-up tools', () => {
  it('npm run doctor and npm run manifest run the scripts that exist', () => {
    expect(pkg.scripts.doctor).toBe('tsx scripts/doctor.ts');
    expect(pkg.scripts.manifest).toBe('tsx scripts/manifest.ts');
    for (const script of ['scripts/doctor.ts', 'scripts/manifest.ts'])
      expect(readFileSync(join(ROOT, script), 'utf8').length).toBeGreaterThan(0);
  });

  it('npm run demo runs the playground from demo/ through tsx (it is not built)', () => {
    expect(pkg.scripts.demo).toBe('tsx demo/main.ts');
    expect(readFileSync(join(ROOT, 'demo', 'main.ts'), 'utf8').length).toBeGreaterThan(0);
  });
});

describe('npm run test:fast', () => {
  it('runs exactly the unit tests; npm run test:slow the simulations; npm test both and the rest', () => {
    expect(pkg.scripts['test:fast']).toBe('vitest run --project unit');
    expect(pkg.scripts['test:slow']).toBe('vitest run --project slow');
    expect(pkg.scripts.test).toBe('vitest run');
  });

  it('reaches no helper that starts redis-server or a bot process, and no child_process', () => {
    const tests = filesUnder(join(ROOT, 'test', 'unit')).filter((f) => f.endsWith('.test.ts'));
    expect(tests.length).toBeGreaterThan(50);
    const offenders: string[] = [];
    for (const test of tests) {
      const { files, builtins } = reachedFrom(test);
      const spawning = SPAWNING.filter((helper) => files.has(join(ROOT, helper)));
      if (builtins.has('node:child_process')) spawning.push('node:child_process');
      if (spawning.length > 0) offenders.push(`${relative(ROOT, test)} → ${spawning.join(', ')}`);
    }
    expect(offenders, 'move these to test/integration').toEqual([]);
  });
});
