import { createHash, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { errorCode } from '../../src/common/errors.js';
import { parseEncryptionKeys, SecretBox, secretBoxFromSettings } from '../../src/common/secret-box.js';

const keyA = randomBytes(32);
const keyB = randomBytes(32);
const a = keyA.toString('base64');
const b = keyB.toString('base64');

/** The error a call throws (its code and message), so tests can check both. */
function failure(run: () => unknown): { code: string | undefined; message: string } {
  try {
    run();
  } catch (error) {
    return { code: errorCode(error), message: (error as Error).message };
  }
  throw new Error('expected a failure');
}

/** Every way a key could show up in a message. */
const forms = (key: Buffer) => [key.toString('base64'), key.toString('base64url'), key.toString('hex')];

describe('SecretBox', () => {
  const box = new SecretBox({ id: 'k1', key: keyA });

  it('seals as v1.<keyId>.<iv>.<tag>.<ciphertext> and opens what it sealed', () => {
    const sealed = box.seal('xoxb-1-secret', 'installation:T1');
    expect(sealed).toMatch(/^v1\.k1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain('secret');
    expect(box.open(sealed, 'installation:T1')).toEqual({ value: 'xoxb-1-secret', sealedWithOldKey: false });
    // A fresh IV every time: the same secret never seals to the same text.
    expect(box.seal('xoxb-1-secret')).not.toBe(box.seal('xoxb-1-secret'));
    expect(box.open(box.seal('')).value).toBe('');
  });

  it('refuses a value altered in any part, or opened for another record', () => {
    const sealed = box.seal('svc_live_abcd', 'settings:T1');
    const parts = sealed.split('.');
    const flipFirst = (text: string) => (text[0] === 'A' ? 'B' : 'A') + text.slice(1);
    for (let i = 0; i < parts.length; i++) {
      const altered = parts.map((part, j) => (j === i ? flipFirst(part) : part)).join('.');
      const { code } = failure(() => box.open(altered, 'settings:T1'));
      expect(['sealed_value_invalid', 'sealed_with_unknown_key']).toContain(code);
    }
    expect(failure(() => box.open(sealed, 'settings:T2')).code).toBe('sealed_value_invalid');
    expect(failure(() => box.open(sealed.slice(0, -2), 'settings:T1')).code).toBe('sealed_value_invalid');
    expect(failure(() => box.open(`${sealed}.x`, 'settings:T1')).code).toBe('sealed_value_invalid');
    expect(failure(() => box.open('not sealed', 'settings:T1')).code).toBe('sealed_value_invalid');
    // Another key under the same id: the tag does not match.
    const impostor = new SecretBox({ id: 'k1', key: keyB });
    expect(failure(() => impostor.open(sealed, 'settings:T1')).code).toBe('sealed_value_invalid');
  });

  it('opens values sealed with an earlier key and says they need sealing again', () => {
    const before = new SecretBox({ id: 'old', key: keyA });
    const sealed = before.seal('xoxe-refresh', 'ctx');
    const after = new SecretBox({ id: 'new', key: keyB }, [{ id: 'old', key: keyA }]);
    expect(after.open(sealed, 'ctx')).toEqual({ value: 'xoxe-refresh', sealedWithOldKey: true });
    const resealed = after.seal('xoxe-refresh', 'ctx');
    expect(resealed.startsWith('v1.new.')).toBe(true);
    expect(after.open(resealed, 'ctx').sealedWithOldKey).toBe(false);
  });

  it('names the missing key id (and where to add it) when the old key is not configured', () => {
    const sealed = new SecretBox({ id: 'gone', key: keyA }).seal('x');
    const { code, message } = failure(() => new SecretBox({ id: 'new', key: keyB }).open(sealed));
    expect(code).toBe('sealed_with_unknown_key');
    expect(message).toContain(
      'sealed with key gone, which is not configured: add it to DATA_ENCRYPTION_KEYS_OLD',
    );
  });

  it('property: any string round-trips, under any context', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 300 }),
        fc.string({ maxLength: 40 }),
        (value, ctx) => {
          expect(box.open(box.seal(value, ctx), ctx)).toEqual({ value, sealedWithOldKey: false });
        },
      ),
      { numRuns: 200 },
    );
  });

  it('property: any single-bit flip anywhere in a sealed value is refused', () => {
    const other = new SecretBox({ id: 'k1', key: keyA }, [{ id: 'k0', key: keyB }]);
    fc.assert(
      fc.property(
        fc.string({ maxLength: 100 }),
        fc.nat(),
        fc.integer({ min: 0, max: 7 }),
        (value, at, bit) => {
          const sealed = other.seal(value, 'ctx');
          const i = at % sealed.length;
          const flipped =
            sealed.slice(0, i) + String.fromCharCode(sealed.charCodeAt(i) ^ (1 << bit)) + sealed.slice(i + 1);
          const { code } = failure(() => other.open(flipped, 'ctx'));
          expect(['sealed_value_invalid', 'sealed_with_unknown_key']).toContain(code);
        },
      ),
      { numRuns: 1_000 },
    );
  });
});

describe('parseEncryptionKeys', () => {
  it('reads a bare key (id from its SHA-256) and id-prefixed old keys', () => {
    const keys = parseEncryptionKeys(a, ` 2025-q4:${b} , `);
    expect(keys.current).toEqual({
      id: createHash('sha256').update(keyA).digest('hex').slice(0, 8),
      key: keyA,
    });
    expect(keys.old).toEqual([{ id: '2025-q4', key: keyB }]);
    expect(parseEncryptionKeys(`main:${keyA.toString('base64url')}`, undefined)).toEqual({
      current: { id: 'main', key: keyA },
      old: [],
    });
    const box = secretBoxFromSettings(`k2:${b}`, `k1:${a}`);
    expect(box.currentKeyId).toBe('k2');
  });

  it.each([
    ['an empty key', '', undefined, 'encryption_key_missing'],
    ['a short key', randomBytes(16).toString('base64'), undefined, 'encryption_key_wrong_length'],
    ['a long key', randomBytes(48).toString('base64'), undefined, 'encryption_key_wrong_length'],
    ['a hex key', keyA.toString('hex'), undefined, 'encryption_key_wrong_length'],
    ['a key with spaces', `${a.slice(0, 10)} ${a.slice(10)}`, undefined, 'encryption_key_not_base64'],
    ['a key with stray characters', `${a.slice(0, -2)}!=`, undefined, 'encryption_key_not_base64'],
    ['an uppercase id', `Main:${a}`, undefined, 'encryption_key_bad_id'],
    ['a too long id', `abcdefghijklmnopq:${a}`, undefined, 'encryption_key_bad_id'],
    ['a short old key', a, `old:${b.slice(4)}`, 'encryption_key_wrong_length'],
    ['an old key that is not base64', a, `old:${b.slice(0, -2)}%=`, 'encryption_key_not_base64'],
    ['the current key again as an old one', a, a, 'encryption_key_duplicate_id'],
    [
      'two old keys under one id',
      `new:${a}`,
      `old:${b},old:${randomBytes(32).toString('base64')}`,
      'encryption_key_duplicate_id',
    ],
  ])('refuses %s with a stable code and no key material in the message', (_what, current, old, code) => {
    const result = failure(() => parseEncryptionKeys(current, old));
    expect(result.code).toBe(code);
    for (const key of [keyA, keyB]) for (const form of forms(key)) expect(result.message).not.toContain(form);
    for (const part of [current, old ?? ''].flatMap((v) => v.split(/[,:\s]/)).filter((p) => p.length > 8))
      expect(result.message).not.toContain(part);
  });
});
