import { describe, expect, it } from 'vitest';
import { passwordsOf, resolveUrls } from '../../scripts/lib/redis-to-cluster-args.js';

const PASSWORD = 'hunter2-Pa55word';
const noFiles = (path: string): string => {
  throw new Error(`no file ${path}`);
};

describe('redis:to-cluster reads its URLs from the environment or a file (issue 44)', () => {
  it('refuses a password on the command line, saying where to put it, without repeating it', () => {
    for (const options of [
      { from: `redis://:${PASSWORD}@old:6379`, to: 'redis://node1:7000' },
      { from: 'redis://old:6379', to: `rediss://admin:${PASSWORD}@node1:7000` },
    ]) {
      const result = resolveUrls(options, {}, noFiles);
      expect(result.ok).toBe(false);
      const problem = result.ok ? '' : result.problem;
      expect(problem).toMatch(/holds a password/);
      expect(problem).toMatch(/REDIS_(FROM|TO)_URL/);
      expect(problem).toMatch(/--(from|to)-file/);
      expect(problem).not.toContain(PASSWORD);
    }
  });

  it('takes the URLs from REDIS_FROM_URL and REDIS_TO_URL', () => {
    const env = {
      REDIS_FROM_URL: `redis://:${PASSWORD}@old:6379`,
      REDIS_TO_URL: `redis://:${PASSWORD}@n:7000`,
    };
    expect(resolveUrls({}, env, noFiles)).toEqual({
      ok: true,
      from: env.REDIS_FROM_URL,
      to: env.REDIS_TO_URL,
    });
  });

  it('takes each URL from the first line of a file', () => {
    const files: Record<string, string> = { '/a': `redis://:${PASSWORD}@old:6379\n`, '/b': 'redis://n:7000' };
    expect(resolveUrls({ 'from-file': '/a', 'to-file': '/b' }, {}, (p) => files[p] ?? noFiles(p))).toEqual({
      ok: true,
      from: `redis://:${PASSWORD}@old:6379`,
      to: 'redis://n:7000',
    });
    const unreadable = resolveUrls(
      { 'from-file': '/nope', 'to-file': '/b' },
      {},
      (p) => files[p] ?? noFiles(p),
    );
    expect(unreadable).toMatchObject({ ok: false, problem: expect.stringContaining("couldn't read /nope") });
  });

  it('accepts a URL without a password on the command line, and says what is missing', () => {
    expect(resolveUrls({ from: 'redis://old:6379', to: 'redis://n:7000' }, {}, noFiles).ok).toBe(true);
    expect(resolveUrls({ from: 'redis://old:6379' }, {}, noFiles)).toMatchObject({
      ok: false,
      problem: expect.stringContaining('REDIS_TO_URL'),
    });
  });

  it('knows both forms of each password, to keep them out of the output', () => {
    expect(passwordsOf('redis://:p%40ss@h:1', 'redis://h:2')).toEqual(['p%40ss', 'p@ss']);
  });
});
