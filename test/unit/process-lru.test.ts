import { describe, expect, it } from 'vitest';
import { ProcessLru, tenantCaches } from '../../src/common/process-lru.js';

describe('the process-wide cache (one bound for every tenant)', () => {
  it('bounds all tenants together, least recently used first, each tenant seeing only its own keys', () => {
    const lru = new ProcessLru(1_000);
    const a = tenantCaches(lru, 'T0A').view<string>('names');
    const b = tenantCaches(lru, 'T0B').view<string>('names');
    a.set('U1', 'alice of A');
    b.set('U1', 'bob of B');
    expect(a.get('U1')).toBe('alice of A');
    expect(b.get('U1')).toBe('bob of B');
    // 2,000 tenants each caching 10 names: the process holds 1,000 entries, not 20,000.
    for (let t = 0; t < 2_000; t += 1) {
      const names = tenantCaches(lru, `T${t}`).view<string>('names');
      for (let u = 0; u < 10; u += 1) names.set(`U${u}`, `user ${u}`);
      a.get('U1'); // used all along: never the least recently used
    }
    expect(lru.size).toBe(1_000);
    expect(a.get('U1')).toBe('alice of A');
    expect(b.get('U1')).toBeUndefined();
  });

  it('drops every kind of one tenant at its uninstall, and nobody else’s', () => {
    const lru = new ProcessLru(100);
    const t1 = tenantCaches(lru, 'T1');
    const t10 = tenantCaches(lru, 'T10');
    t1.view<string>('names').set('U1', 'x');
    t1.view<string>('etags').set('/repos/a/b', 'y');
    t10.view<string>('names').set('U1', 'z');
    lru.dropScope('T1/');
    expect(t1.view<string>('names').get('U1')).toBeUndefined();
    expect(t1.view<string>('etags').get('/repos/a/b')).toBeUndefined();
    expect(t10.view<string>('names').get('U1')).toBe('z');
  });
});
