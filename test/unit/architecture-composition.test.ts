import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The composition root stays readable (issue 43 §7): `createDocsAgent` is a list of named steps (the
 * `*-wiring.ts` files), not the wiring itself. A newcomer reads what is handed in per process and what is
 * built per scope in one screen; new wiring goes into a step.
 */
const APP = join(import.meta.dirname, '..', '..', 'src', 'composition', 'app.ts');
const MAX_BODY_LINES = 100;

/**
 * The lines between a top-level function's opening line (where its signature's `{` ends a line) and its
 * closing `}` at column 0; undefined when the function is not there.
 */
function bodyLines(text: string, name: string): number | undefined {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => line.startsWith(`export function ${name}(`));
  if (start < 0) return undefined;
  let open = start;
  while (open < lines.length && !lines[open]!.trimEnd().endsWith('{')) open++;
  const end = lines.findIndex((line, i) => i > open && line === '}');
  return end < 0 ? undefined : end - open - 1;
}

describe('architecture: the composition root', () => {
  it(`createDocsAgent's body is at most ${MAX_BODY_LINES} lines`, () => {
    const lines = bodyLines(readFileSync(APP, 'utf8'), 'createDocsAgent');
    expect(lines, 'createDocsAgent not found in src/composition/app.ts').toBeDefined();
    expect(lines).toBeGreaterThan(0);
    expect(lines).toBeLessThanOrEqual(MAX_BODY_LINES);
  });

  it("measures a function's body (the rule is not vacuous)", () => {
    const text = [
      "import { x } from './x.js';",
      'export function createThing(',
      '  config: Config,',
      '): Thing {',
      '  const a = 1;',
      '  if (a) {',
      '    return a;',
      '  }',
      '  return 2;',
      '}',
      'export function other() {}',
    ].join('\n');
    expect(bodyLines(text, 'createThing')).toBe(5);
    expect(bodyLines(text, 'missing')).toBeUndefined();
  });
});
