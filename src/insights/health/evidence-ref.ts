import { z } from 'zod';
import { MAX_READER_TEXT } from '../../common/untrusted-text.js';
import type { Evidence } from './evidence.js';

/** Slack's limit on a button `value`. */
export const MAX_REF_CHARS = 2000;
/** Longer identifiers are cut: the reference stays one button value however long a query or path is. */
const MAX_KEY_CHARS = 600;
const MAX_COMMENTS_CHARS = 900;

const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const count = z.number().finite();
const range = z.object({ from: day, toExclusive: day });
const views = z.object({ human: count, ai: count });
/** Nearby searches an unfurl's evidence carries at most, each cut to this many characters. */
export const MAX_NEARBY = 3;
const MAX_SEARCH_CHARS = 120;

/** The evidence as this module writes it, with text up to `maxText` and comments up to `maxComment`. */
function evidenceSchema(maxText: number, maxComment: number) {
  const text = z.string().max(maxText);
  const removed = z.number().int().min(0).optional();
  return z.discriminatedUnion('kind', [
    z.object({
      kind: z.literal('search'),
      query: text,
      hits: count,
      ctr: count,
      share: count.optional(),
      removed,
      range,
    }),
    z.object({
      kind: z.literal('page'),
      path: text,
      thumbsDown: count,
      thumbsUp: count,
      comments: z.array(z.string().max(maxComment)).max(5),
      viewsDrop: z.object({ today: count, median: count }).optional(),
      removed,
      range,
      nearbySearches: z.array(z.string().max(MAX_SEARCH_CHARS)).max(MAX_NEARBY).optional(),
      pageViews: z.object({ current: views, previous: views }).optional(),
    }),
    z.object({ kind: z.literal('question'), question: text, asked: count, removed, range }),
  ]);
}

const refSchema = evidenceSchema(MAX_KEY_CHARS + 1, MAX_COMMENTS_CHARS);
/** Evidence kept server-side (`HealthEvidence`): reader text as the report holds it, capped at 2,000. */
const storedSchema = evidenceSchema(MAX_READER_TEXT, MAX_READER_TEXT);

/** Evidence stored as JSON by `HealthEvidence`, or undefined for anything else. */
export function decodeStoredEvidence(json: string): Evidence | undefined {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  const parsed = storedSchema.safeParse(value);
  if (!parsed.success) return undefined;
  const data = parsed.data;
  return data.kind === 'search' ? { ...data, share: data.share } : data;
}

const cut = (value: string, max: number) => {
  const chars = Array.from(value);
  return chars.length <= max ? value : `${chars.slice(0, max - 1).join('')}…`;
};

/**
 * The evidence as a button `value` (JSON, ≤ 2000 characters): everything the modal needs, so opening it
 * within Slack's 3-second `trigger_id` window needs no fetch. Only readers' data, never a credential.
 */
export function encodeEvidenceRef(evidence: Evidence, maxKeyChars = MAX_KEY_CHARS): string {
  const encoded = encodeWithin(evidence, maxKeyChars);
  // JSON escapes (quotes, control characters) can grow a key sixfold: cut harder until it fits.
  return encoded.length <= MAX_REF_CHARS || maxKeyChars <= 20
    ? encoded
    : encodeEvidenceRef(
        { ...evidence, ...(evidence.kind === 'page' ? { comments: [] } : {}) },
        Math.floor(maxKeyChars / 2),
      );
}

function encodeWithin(evidence: Evidence, maxKeyChars: number): string {
  const compact: Evidence =
    evidence.kind === 'search'
      ? { ...evidence, query: cut(evidence.query, maxKeyChars) }
      : evidence.kind === 'question'
        ? { ...evidence, question: cut(evidence.question, maxKeyChars) }
        : {
            ...evidence,
            path: cut(evidence.path, maxKeyChars),
            comments: [],
            ...(evidence.nearbySearches
              ? {
                  nearbySearches: evidence.nearbySearches
                    .slice(0, MAX_NEARBY)
                    .map((q) => cut(q, Math.min(MAX_SEARCH_CHARS, maxKeyChars))),
                }
              : {}),
          };
  if (evidence.kind === 'page' && compact.kind === 'page') {
    // Comments fill what room is left, newest first, each cut to fit.
    let room = MAX_REF_CHARS - JSON.stringify(compact).length - 20;
    for (const comment of evidence.comments) {
      const fitted = cut(comment, Math.min(MAX_COMMENTS_CHARS, Math.floor(room / 2)));
      if (fitted.length < 20 || JSON.stringify(fitted).length + 1 > room) break;
      compact.comments.push(fitted);
      room -= JSON.stringify(fitted).length + 1;
    }
  }
  const { share, ...rest } = compact as Evidence & { share?: number };
  return JSON.stringify(share === undefined ? rest : compact);
}

/** The evidence back from a button value, or undefined for anything we did not write. */
export function decodeEvidenceRef(value: string): Evidence | undefined {
  if (value.length > MAX_REF_CHARS) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(value);
  } catch {
    return undefined;
  }
  const parsed = refSchema.safeParse(json);
  if (!parsed.success) return undefined;
  const data = parsed.data;
  return data.kind === 'search' ? { ...data, share: data.share } : data;
}
