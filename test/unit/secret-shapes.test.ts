import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  findSecret,
  MAX_SECRET_SCAN_CHARS,
  type SecretKind,
  scrubDeep,
  scrubSecrets,
  secretMatches,
} from '../../src/common/secret-shapes.js';
import { replayable } from '../support/property-seed.js';

const token = (n: number) =>
  fc.string({ unit: fc.constantFrom(...'ABCxyz019_-'), minLength: n, maxLength: n + 30 });
const upperAlnum = fc.string({
  unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'),
  minLength: 16,
  maxLength: 16,
});

/** One credential of each shape, as its issuer writes it. */
const secrets: fc.Arbitrary<{ kind: SecretKind; value: string }> = fc.oneof(
  fc
    .tuple(fc.constantFrom('ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'), token(6))
    .map(([p, b]) => ({ kind: 'github' as const, value: p + b })),
  fc
    .tuple(fc.constantFrom('xoxb-', 'xoxp-', 'xoxe-', 'xoxz-', 'xoxA-', 'xapp-'), token(6))
    .map(([p, b]) => ({ kind: 'slack' as const, value: p + b })),
  token(8).map((b) => ({ kind: 'docs' as const, value: `svc_${b}` })),
  fc
    .tuple(fc.constantFrom('AKIA', 'ASIA'), upperAlnum)
    .map(([p, b]) => ({ kind: 'cloud' as const, value: p + b })),
  fc
    .tuple(fc.constantFrom('', 'RSA ', 'EC ', 'OPENSSH ', 'ENCRYPTED '), fc.base64String({ minLength: 4 }))
    .map(([label, body]) => ({
      kind: 'pem' as const,
      value: `-----BEGIN ${label}PRIVATE KEY-----\n${body}\n-----END ${label}PRIVATE KEY-----`,
    })),
);

describe('credential shapes', () => {
  it('finds each shape and names its kind, without echoing it', () => {
    const cases: [string, SecretKind][] = [
      ['setting github ghp_0123456789abcdefABCDEF0123456789abcd', 'github'],
      ['use github_pat_11ABCDEFG0123456789_abcdefghijk', 'github'],
      ['token xoxb-1234-5678-abcdefABCDEF please', 'slack'],
      ['xoxq-new-letter-123456', 'slack'],
      ['app xapp-1-A0123-456-abcdef', 'slack'],
      ['key: svc_live_0123456789abcd', 'docs'],
      ['aws AKIAIOSFODNN7EXAMPLE here', 'cloud'],
      ['(ASIA0123456789ABCDEF)', 'cloud'],
      ['-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk=\n-----END OPENSSH PRIVATE KEY-----', 'pem'],
    ];
    for (const [text, kind] of cases) expect(findSecret(text)?.kind, text).toBe(kind);
    expect(scrubSecrets('a svc_live_0123456789abcd b')).toBe('a [redacted] b');
  });

  it('leaves near misses alone: short bodies, masked keys, words, public key blocks', () => {
    for (const text of [
      'svc_…abcd is connected',
      'rename svc_x to y',
      'ghp_ alone',
      'xoxb-123',
      'AKIAIOSFODNN7EXAMPL short',
      'XAKIAIOSFODNN7EXAMPLE glued',
      'AKIAIOSFODNN7EXAMPLEX long',
      '-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----',
      '-----BEGIN CERTIFICATE-----',
      'https://docs.example.com/guides/github-pat-setup?x=svc&y=ghp',
    ])
      expect(findSecret(text), text).toBeUndefined();
  });

  it('is one linear pass: long runs and many prefixes cost no more than their length', () => {
    const started = performance.now();
    for (const text of [
      `svc_${'a'.repeat(500_000)}`,
      'ghp_'.repeat(200_000),
      'svc_1234'.repeat(100_000),
      '-----BEGIN '.repeat(80_000),
      `-----BEGIN PRIVATE KEY-----${'A'.repeat(500_000)}`,
      'AKIA'.repeat(200_000),
      'x'.repeat(800_000),
    ])
      scrubSecrets(text);
    expect(performance.now() - started).toBeLessThan(10_000); // quadratic would take hours; linear is well under a second
    expect(scrubSecrets(`xoxb-${'a'.repeat(200_000)} after`)).toBe('[redacted] after');
  });

  it('scrubs a stored value however deep, copying only what changed', () => {
    const clean = { a: 'x', b: [1, { c: 'y' }], d: null };
    expect(scrubDeep(clean)).toBe(clean);
    const held = { a: 'x', b: [1, { c: 'key svc_live_0123456789abcd' }], d: null };
    const out = scrubDeep(held);
    expect(out).toEqual({ a: 'x', b: [1, { c: 'key [redacted]' }], d: null });
    expect(held.b[1]).toEqual({ c: 'key svc_live_0123456789abcd' });
  });

  it('refuses text too long to scan (fail closed)', () => {
    expect(findSecret('a'.repeat(MAX_SECRET_SCAN_CHARS + 1))?.kind).toBe('unchecked');
  });

  it('finds a credential embedded anywhere in random text (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 200 }),
        secrets,
        fc.string({ maxLength: 200 }),
        (before, secret, after) => {
          // A cloud key id is a word of its own: the spaces are where a person would put them.
          const text = `${before} ${secret.value} ${after}`;
          const at = before.length + 1;
          const hit = [...secretMatches(text)].find((m) => m.start <= at + 4 && m.end >= at + 4);
          expect(hit).toBeDefined();
          expect(findSecret(text)).toBeDefined();
          expect(scrubSecrets(text)).not.toContain(secret.value);
        },
      ),
      replayable('secret embedded anywhere is found', 300),
    );
  }, 60_000);

  it('finds nothing in ordinary prose and URLs (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(fc.lorem({ maxCount: 12 }), fc.webUrl({ withQueryParameters: true, withFragments: true })),
          {
            maxLength: 5,
          },
        ),
        (parts) => {
          const text = parts.join(' ');
          expect(findSecret(text)).toBeUndefined();
          expect(scrubSecrets(text)).toBe(text);
        },
      ),
      replayable('prose and URLs hold no secret', 60),
    );
  }, 60_000); // generating URLs is slow on a busy machine; the scan itself is not
});
