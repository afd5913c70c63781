import { describe, expect, it, vi } from 'vitest';
import { lazyChild } from '../../src/common/lazy-logger.js';
import { createLogger, SecretSet } from '../../src/common/logger.js';

function collect(secrets: string[] | SecretSet = [], level = 'info') {
  const lines: string[] = [];
  const logger = createLogger({ level, secrets, destination: { write: (l: string) => lines.push(l) } });
  return { logger, lines, parsed: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

/** A line without its time (two loggers never log in the same millisecond for sure). */
function timeless(line: Record<string, unknown>): Record<string, unknown> {
  const { time: _time, ...rest } = line;
  return rest;
}

describe('a lazy child logger (issue 43 §2: a quiet scope builds no pino child)', () => {
  it('builds no pino child until it logs, however it is asked about its level or made a child of', () => {
    const { logger } = collect([], 'warn');
    const child = vi.spyOn(logger, 'child');
    const lazy = lazyChild(logger, { tenant: 't1' });
    const grandchild = lazy.child({ component: 'delivery' });
    expect(lazy.level).toBe('warn');
    expect(grandchild.level).toBe('warn');
    expect(grandchild.isLevelEnabled('info')).toBe(false);
    expect(grandchild.isLevelEnabled('error')).toBe(true);
    grandchild.info({ quiet: true }, 'below the level: dropped, as a built child drops it');
    lazy.debug('dropped too');
    expect(child).not.toHaveBeenCalled();

    grandchild.error('first');
    // The tenant's child, then the grandchild from it (a pino child inherits its parent's `child`).
    expect(child.mock.calls.map(([bindings]) => bindings)).toEqual([
      { tenant: 't1' },
      { component: 'delivery' },
    ]);
    grandchild.error('second');
    lazy.error('third');
    expect(child).toHaveBeenCalledTimes(2);
  });

  it('logs the same lines, with both bindings, as children built at once', () => {
    const eager = collect();
    const lazy = collect();
    const write = (logger: ReturnType<typeof createLogger>) => {
      const part = logger.child({ component: 'alerts', part: 'check' });
      part.info({ project: 'p1' }, 'checked');
      part.debug('not written at info');
      part.child({ part: 'doorbell' }).warn('rang');
    };
    write(eager.logger.child({ tenant: 't1' }));
    write(lazyChild(lazy.logger, { tenant: 't1' }));
    expect(lazy.lines).toHaveLength(2);
    expect(lazy.parsed().map(timeless)).toEqual(eager.parsed().map(timeless));
    expect(lazy.parsed()[1]).toMatchObject({
      tenant: 't1',
      component: 'alerts',
      part: 'doorbell',
      msg: 'rang',
    });
  });

  it('scrubs secrets, the ones learned after it was made too', () => {
    const secrets = new SecretSet(['deployment-secret-1']);
    const { logger, lines } = collect(secrets);
    const lazy = lazyChild(logger, { tenant: 't1' }).child({ component: 'install' });
    secrets.set('t1', ['tenant-token-0123456789']);
    lazy.warn({ token: 'field-token', note: 'deployment-secret-1' }, 'refused tenant-token-0123456789');
    const line = lines.join('');
    expect(line).not.toContain('deployment-secret-1');
    expect(line).not.toContain('tenant-token-0123456789');
    expect(line).not.toContain('field-token');
    expect(line).toContain('[redacted]');
  });

  it('takes a level of its own without changing its parent', () => {
    const { logger, parsed } = collect();
    const lazy = lazyChild(logger, { tenant: 't1' });
    lazy.level = 'debug';
    expect(lazy.isLevelEnabled('debug')).toBe(true);
    expect(logger.level).toBe('info');
    lazy.debug('seen');
    logger.debug('not seen');
    const quiet = lazyChild(logger, { tenant: 't2' }, { level: 'error' });
    expect(quiet.isLevelEnabled('warn')).toBe(false);
    quiet.warn('not seen either');
    expect(parsed().map((l) => l.msg)).toEqual(['seen']);
  });
});
