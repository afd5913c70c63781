import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger, wantsPretty } from '../../src/common/logger.js';

/*
 * pino-pretty is a dev dependency: production (NODE_ENV=production, `npm ci --omit=dev`, no terminal) never
 * loads it, and a logger asked for pretty lines where it is missing writes JSON instead of failing.
 */

const ROOT = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

describe('pretty log lines', () => {
  it('pino-pretty is a dev dependency, and no source imports it statically', () => {
    expect(pkg.dependencies['pino-pretty']).toBeUndefined();
    expect(pkg.devDependencies['pino-pretty']).toBeDefined();
    const logger = readFileSync(join(ROOT, 'src', 'common', 'logger.ts'), 'utf8');
    // Only a type import (erased from the build); the module itself is required when wanted.
    expect(logger).not.toMatch(/^import(?!\s+type\b)[^;]*from\s+'pino-pretty'/m);
  });

  it.each([
    [{ NODE_ENV: 'production' }, true, false],
    [{ NODE_ENV: 'production', LOG_PRETTY: 'true' }, false, true],
    [{ NODE_ENV: 'development' }, true, true],
    [{}, true, true],
    [{}, false, false],
    [{ LOG_PRETTY: '1' }, false, true],
    [{ LOG_PRETTY: 'false' }, true, false],
  ])('env %j on a terminal=%s: pretty=%s', (env, isTTY, expected) => {
    expect(wantsPretty(env, isTTY)).toBe(expected);
  });

  it('writes readable lines, secrets scrubbed, when asked for them and pino-pretty is installed', async () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: 'info',
      secrets: ['xoxb-secret-token-1234567890'],
      pretty: true,
      destination: { write: (line: string) => lines.push(line) },
    });
    logger.info({ note: 'token xoxb-secret-token-1234567890' }, 'hello pretty');
    await expect.poll(() => lines.join('')).toContain('hello pretty');
    const text = lines.join('');
    expect(() => JSON.parse(text)).toThrow();
    expect(text).not.toContain('xoxb-secret-token-1234567890');
  });
});
