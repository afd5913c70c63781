import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..', '..', 'src');

/** The modules a source file imports or re-exports, as paths under src/ (relative imports only). */
function localImports(file: string): string[] {
  const text = readFileSync(join(SRC, file), 'utf8');
  return [...text.matchAll(/(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]/g)].map((m) =>
    normalize(join(dirname(file), m[1] ?? '')).replace(/\.js$/, '.ts'),
  );
}

// Issue 34: the circles the per-replica / per-scope reshaping touches stay broken (shared types live in
// modules of their own: tenant-runtimes-deps.ts; secretsOf is imported from config-secrets.ts itself).
const PAIRS: Array<[string, string]> = [
  ['composition/oauth/tenant-runtime.ts', 'composition/oauth/tenant-runtimes.ts'],
  ['common/config.ts', 'common/config-secrets.ts'],
];

describe('import circles', () => {
  it.each(PAIRS)('%s and %s do not import each other', (a, b) => {
    expect(localImports(a).includes(b) && localImports(b).includes(a)).toBe(false);
  });
});
