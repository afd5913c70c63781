/**
 * Log scrubbing whose cost does not grow with the number of tenants: token and key shapes are replaced
 * wherever they appear (one linear scan, secret-shapes.ts), and known
 * secrets (the deployment's, each tenant's current tokens and keys) are found in one pass over the line with
 * a rolling hash of their first characters: one Map look-up per position, whatever the number of secrets.
 */

import { scrubSecrets } from './secret-shapes.js';

const REDACTED = '[redacted]';

/**
 * Slack tokens, docs admin keys, GitHub tokens, cloud access keys and private key blocks (the one list in
 * secret-shapes.ts), found in one linear pass without a regex.
 */
export function scrubShapes(line: string): string {
  return scrubSecrets(line);
}

/** Characters hashed per position; shorter secrets are checked one by one (only the deployment's own). */
const WINDOW = 8;
const BASE = 131;
/** BASE^(WINDOW-1) in 32-bit arithmetic, to take the leaving character out of the rolling hash. */
const HIGH = (() => {
  let h = 1;
  for (let i = 0; i < WINDOW - 1; i++) h = Math.imul(h, BASE);
  return h;
})();

/** A polynomial hash in wrapping 32-bit integer arithmetic (exact, so rolling it gives the same value). */
function hashOf(text: string, from: number): number {
  let h = 0;
  for (let i = from; i < from + WINDOW; i++) h = (Math.imul(h, BASE) + text.charCodeAt(i)) | 0;
  return h;
}

/**
 * Every form a secret takes in a log line: as is, JSON-escaped once (a pino string field) and twice (JSON
 * inside a string field, e.g. an error body), and percent-encoded (inside a URL).
 */
export function secretForms(secret: string): string[] {
  if (secret === '') return [];
  const once = JSON.stringify(secret).slice(1, -1);
  return [...new Set([secret, once, JSON.stringify(once).slice(1, -1), encodeURIComponent(secret)])];
}

/** Known secrets' forms, indexed by the hash of their first WINDOW characters; counted, so shared ones stay. */
export class SecretIndex {
  private readonly byHash = new Map<number, Map<string, number>>();
  private readonly short = new Map<string, number>();

  add(secret: string): void {
    for (const form of secretForms(secret)) this.count(form, 1);
  }

  remove(secret: string): void {
    for (const form of secretForms(secret)) this.count(form, -1);
  }

  private count(form: string, delta: number): void {
    if (form.length < WINDOW) {
      bump(this.short, form, delta);
      return;
    }
    const h = hashOf(form, 0);
    let bucket = this.byHash.get(h);
    if (!bucket) {
      if (delta < 0) return;
      bucket = new Map();
      this.byHash.set(h, bucket);
    }
    bump(bucket, form, delta);
    if (bucket.size === 0) this.byHash.delete(h);
  }

  /** The line with every known secret replaced (the longest one where several start at the same place). */
  scrub(line: string): string {
    // Long secrets first: a short one inside a long one must not break the long one's match.
    return this.scrubShort(this.scrubLong(line));
  }

  private scrubShort(line: string): string {
    let out = line;
    for (const form of this.short.keys()) if (out.includes(form)) out = out.replaceAll(form, REDACTED);
    return out;
  }

  private scrubLong(out: string): string {
    if (this.byHash.size === 0 || out.length < WINDOW) return out;
    const parts: string[] = [];
    let copied = 0;
    let h = hashOf(out, 0);
    for (let i = 0; i + WINDOW <= out.length; i++) {
      if (i > 0) {
        h = (h - Math.imul(out.charCodeAt(i - 1), HIGH)) | 0;
        h = (Math.imul(h, BASE) + out.charCodeAt(i + WINDOW - 1)) | 0;
      }
      if (i < copied) continue;
      const bucket = this.byHash.get(h);
      if (!bucket) continue;
      let longest = 0;
      for (const form of bucket.keys())
        if (form.length > longest && out.startsWith(form, i)) longest = form.length;
      if (longest === 0) continue;
      parts.push(out.slice(copied, i), REDACTED);
      copied = i + longest;
    }
    if (copied === 0) return out;
    parts.push(out.slice(copied));
    return parts.join('');
  }
}

function bump(counts: Map<string, number>, key: string, delta: number): void {
  const next = (counts.get(key) ?? 0) + delta;
  if (next > 0) counts.set(key, next);
  else counts.delete(key);
}
