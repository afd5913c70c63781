import { describe, expect, it } from 'vitest';
import { SecretSet } from '../../src/common/logger.js';
import { scrubShapes } from '../../src/common/secret-scrubber.js';

describe('the log scrubber', () => {
  it('replaces token and key shapes wherever they appear, known or not', () => {
    const line =
      '{"msg":"x","url":"https://h/?t=xoxb-1-2-abcdef&k=svc_abcdefgh","e":"xoxe-1-Zz9_refresh xapp-1-A0-x-abcdef ghp_0123456789abcd"}';
    const out = scrubShapes(line);
    for (const secret of [
      'xoxb-1-2-abcdef',
      'svc_abcdefgh',
      'xoxe-1-Zz9_refresh',
      'xapp-1-A0-x-abcdef',
      'ghp_0123456789abcd',
    ])
      expect(out).not.toContain(secret);
    expect(out).toContain('https://h/?t=[redacted]&k=[redacted]');
  });

  it('is one pass: a long run after a prefix matches once, and no prefix means no match', () => {
    const run = `xoxb-${'a'.repeat(200_000)}`;
    expect(scrubShapes(`${run} after`)).toBe('[redacted] after');
    expect(scrubShapes('x'.repeat(1000))).toBe('x'.repeat(1000));
  });

  it('scrubs each owner’s secrets in every form, and forgets them on rotation and uninstall', () => {
    const secrets = new SecretSet(['deploy-own-secret-123']);
    const random = 'Qm9ndXMtcmFuZG9tLWtleQ==+/'; // no shape: found only because it is known
    const old = 'tok3n-of-acme-first';
    secrets.set('T0ACME', [old, random]);
    const line = (s: string) =>
      `{"a":"${s}","b":${JSON.stringify(JSON.stringify({ s }))},"u":"${encodeURIComponent(s)}"}`;
    for (const s of [random, old, 'deploy-own-secret-123'])
      expect(secrets.scrub(`x ${line(s)} y`)).not.toContain(s.slice(0, 12));
    // Rotated: the old value is nobody's secret any more; the new one is scrubbed.
    secrets.set('T0ACME', ['tok3n-of-acme-second', random]);
    expect(secrets.scrub(old)).toBe(old);
    expect(secrets.scrub('tok3n-of-acme-second')).toBe('[redacted]');
    // Shared by two tenants: kept while either holds it.
    secrets.set('T0BETA', [random]);
    secrets.drop('T0ACME');
    expect(secrets.scrub(random)).toBe('[redacted]');
    secrets.drop('T0BETA');
    expect(secrets.scrub(random)).toBe(random);
    expect(secrets.owners()).toBe(0);
    expect(secrets.scrub('deploy-own-secret-123')).toBe('[redacted]');
  });

  it('replaces the longest of secrets that start at the same place, and a long one holding a short one whole', () => {
    const secrets = new SecretSet(['pw7']);
    secrets.set('T1', ['abcdefghij', 'abcdefghijklmnop', 'xyzpw7-long-secret']);
    expect(secrets.scrub('<abcdefghijklmnop>')).toBe('<[redacted]>');
    expect(secrets.scrub('<xyzpw7-long-secret> pw7')).toBe('<[redacted]> [redacted]');
  });
});
