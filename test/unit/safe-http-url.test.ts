import { describe, expect, it } from 'vitest';
import { isSafeHttpUrl } from '../../src/common/untrusted-text.js';

describe('isSafeHttpUrl', () => {
  it('takes a plain web address', () => {
    expect(isSafeHttpUrl('https://github.com/acme/docs')).toBe(true);
    expect(isSafeHttpUrl('http://127.0.0.1:8080/x?y=1#z')).toBe(true);
  });

  it('refuses any space, a no-break or ideographic one too (Slack ends a link there)', () => {
    // Found by the job card property (seed 533361371): `<https://github.com/\u00a0/x|/x>` linked github.com.
    for (const space of [' ', '\u00a0', '\u3000', '\u2009', '\u2028', '\u1680', '\t'])
      expect(isSafeHttpUrl(`https://github.com/${space}/x`), JSON.stringify(space)).toBe(false);
  });

  it('refuses what is not a web address or would break Slack markup', () => {
    for (const bad of [
      'javascript:alert(1)',
      'https:///x',
      'https://a.b/<x>',
      'https://a.b/x|y',
      'ftp://a.b/',
    ])
      expect(isSafeHttpUrl(bad), bad).toBe(false);
  });
});
