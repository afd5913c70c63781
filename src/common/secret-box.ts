import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { AppError } from './errors.js';

/**
 * Secrets at rest (bot tokens, refresh tokens, docs API keys): AES-256-GCM with a random 12-byte IV, sealed
 * as `v1.<keyId>.<iv>.<tag>.<ciphertext>` (base64url). The key id travels with the value so keys can be
 * rotated: seal with the current key, open with any configured one, and re-seal what an older key sealed.
 * No error message ever carries key material or the sealed value.
 */

export type SecretBoxErrorCode =
  | 'encryption_key_missing'
  | 'encryption_key_not_base64'
  | 'encryption_key_wrong_length'
  | 'encryption_key_bad_id'
  | 'encryption_key_duplicate_id'
  | 'sealed_with_unknown_key'
  | 'sealed_value_invalid';

export class SecretBoxError extends AppError<SecretBoxErrorCode> {}

export interface EncryptionKey {
  id: string;
  key: Buffer;
}

export interface Opened {
  value: string;
  /** Sealed with an earlier key: seal it again with the current one. */
  sealedWithOldKey: boolean;
}

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const KEY_ID = /^[a-z0-9-]{1,16}$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$|^[A-Za-z0-9_-]*$/;

export class SecretBox {
  private readonly keys = new Map<string, Buffer>();
  readonly currentKeyId: string;

  constructor(current: EncryptionKey, older: readonly EncryptionKey[] = []) {
    for (const { id, key } of [current, ...older]) {
      if (!KEY_ID.test(id))
        throw new SecretBoxError('encryption_key_bad_id', 'an encryption key id is invalid');
      if (key.length !== KEY_BYTES)
        throw new SecretBoxError(
          'encryption_key_wrong_length',
          `encryption key ${id} is not ${KEY_BYTES} bytes`,
        );
      if (this.keys.has(id))
        throw new SecretBoxError(
          'encryption_key_duplicate_id',
          `encryption key id ${id} is configured twice`,
        );
      this.keys.set(id, Buffer.from(key));
    }
    this.currentKeyId = current.id;
  }

  /**
   * Seals `value` with the current key. `context` (e.g. `installation:T123`) is authenticated but not
   * stored: a value opens only under the context it was sealed for, so it cannot be moved to another record.
   */
  seal(value: string, context = ''): string {
    const iv = randomBytes(IV_BYTES);
    const header = `${VERSION}.${this.currentKeyId}`;
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.currentKeyId)!, iv);
    cipher.setAAD(additionalData(header, context));
    const ciphertext = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [header, iv, tag, ciphertext]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  /** Opens a sealed value (with the `context` it was sealed for); throws a SecretBoxError if it cannot. */
  open(sealed: string, context = ''): Opened {
    const parts = sealed.split('.');
    if (parts.length !== 5 || parts[0] !== VERSION) throw invalid();
    const [version, keyId, ivText, tagText, ciphertextText] = parts as [
      string,
      string,
      string,
      string,
      string,
    ];
    if (!KEY_ID.test(keyId)) throw invalid();
    const key = this.keys.get(keyId);
    if (!key)
      throw new SecretBoxError(
        'sealed_with_unknown_key',
        `a stored secret was sealed with key ${keyId}, which is not configured: add it to DATA_ENCRYPTION_KEYS_OLD`,
      );
    const iv = strictBase64url(ivText);
    const tag = strictBase64url(tagText);
    const ciphertext = strictBase64url(ciphertextText);
    if (iv?.length !== IV_BYTES || tag?.length !== TAG_BYTES || !ciphertext) throw invalid();
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(additionalData(`${version}.${keyId}`, context));
      decipher.setAuthTag(tag);
      const plain = Buffer.concat([decipher.update(ciphertext), decipher.final()]);
      return { value: plain.toString('utf8'), sealedWithOldKey: keyId !== this.currentKeyId };
    } catch {
      throw invalid();
    }
  }
}

/**
 * `DATA_ENCRYPTION_KEY` and `DATA_ENCRYPTION_KEYS_OLD` (comma-separated): each the base64 of exactly 32
 * bytes, optionally `id:`-prefixed; without an id the id is the first 8 hex digits of the key's SHA-256.
 */
export function parseEncryptionKeys(
  current: string,
  old: string | undefined,
): { current: EncryptionKey; old: EncryptionKey[] } {
  if (!current.trim())
    throw new SecretBoxError(
      'encryption_key_missing',
      'DATA_ENCRYPTION_KEY is empty: set it to base64 of 32 random bytes',
    );
  const entries = (old ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const parsed = {
    current: parseKey(current.trim(), 'DATA_ENCRYPTION_KEY'),
    old: entries.map((entry, i) => parseKey(entry, `DATA_ENCRYPTION_KEYS_OLD entry ${i + 1}`)),
  };
  const seen = new Set<string>();
  for (const { id } of [parsed.current, ...parsed.old]) {
    if (seen.has(id))
      throw new SecretBoxError(
        'encryption_key_duplicate_id',
        `encryption key id ${id} appears twice in DATA_ENCRYPTION_KEY and DATA_ENCRYPTION_KEYS_OLD: give each key its own id (and do not list the current key as an old one)`,
      );
    seen.add(id);
  }
  return parsed;
}

/** A SecretBox from the two settings (see parseEncryptionKeys). */
export function secretBoxFromSettings(current: string, old: string | undefined): SecretBox {
  const keys = parseEncryptionKeys(current, old);
  return new SecretBox(keys.current, keys.old);
}

function parseKey(text: string, where: string): EncryptionKey {
  const colon = text.indexOf(':');
  const id = colon === -1 ? undefined : text.slice(0, colon);
  const encoded = colon === -1 ? text : text.slice(colon + 1);
  // The id is checked without echoing it: a malformed prefix may be part of a mistyped key.
  if (id !== undefined && !KEY_ID.test(id))
    throw new SecretBoxError(
      'encryption_key_bad_id',
      `${where}: the id before ':' must be 1 to 16 of a-z, 0-9 and -`,
    );
  if (!BASE64.test(encoded) || encoded.length % 4 === 1)
    throw new SecretBoxError(
      'encryption_key_not_base64',
      `${where} is not base64: generate one with \`openssl rand -base64 32\``,
    );
  const key = Buffer.from(encoded, encoded.includes('-') || encoded.includes('_') ? 'base64url' : 'base64');
  if (key.length !== KEY_BYTES)
    throw new SecretBoxError(
      'encryption_key_wrong_length',
      `${where} decodes to ${key.length} bytes, not ${KEY_BYTES}: generate one with \`openssl rand -base64 32\``,
    );
  return { id: id ?? createHash('sha256').update(key).digest('hex').slice(0, 8), key };
}

function additionalData(header: string, context: string): Buffer {
  return Buffer.from(`${header}\n${context}`, 'utf8');
}

/** Decodes only canonical base64url: Node ignores stray characters and unused trailing bits, we do not. */
function strictBase64url(text: string): Buffer | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : undefined;
}

function invalid(): SecretBoxError {
  return new SecretBoxError(
    'sealed_value_invalid',
    'a stored secret failed its integrity check (altered, truncated, or sealed for another record)',
  );
}
