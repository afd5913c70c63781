import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const PASSWORD = 'hunter2-Pa55word';

/** `npm run redis:to-cluster` as an operator runs it: the real script in its own process. */
function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      join(ROOT, 'node_modules', '.bin', 'tsx'),
      [join(ROOT, 'scripts', 'redis-to-cluster.ts'), ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, out: stdout + stderr }),
    );
  });
}

describe('npm run redis:to-cluster never takes a password on its command line (issue 44)', () => {
  it('refuses --from with a password before connecting anywhere, and never repeats it', async () => {
    const result = await run(['--from', `redis://:${PASSWORD}@127.0.0.1:1`, '--to', 'redis://127.0.0.1:2']);
    expect(result.code).toBe(2);
    expect(result.out).toContain('--from holds a password');
    expect(result.out).toContain('REDIS_FROM_URL');
    expect(result.out).not.toContain(PASSWORD);
  }, 90_000);

  it('reads the URLs from the environment, and its failure shows no password', async () => {
    const result = await run([], {
      REDIS_FROM_URL: `redis://:${PASSWORD}@127.0.0.1:1`,
      REDIS_TO_URL: `redis://:${PASSWORD}@127.0.0.1:2`,
    });
    expect(result.code).toBe(1);
    expect(result.out).toContain('Not copied');
    expect(result.out).not.toContain(PASSWORD);
  }, 90_000);
});
