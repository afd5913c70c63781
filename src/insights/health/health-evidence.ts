import { randomBytes } from 'node:crypto';
import type { Evidence } from './evidence.js';
import { decodeEvidenceRef, decodeStoredEvidence } from './evidence-ref.js';
import type { EvidenceStore } from './ports.js';

/** How long a report's fix buttons keep working. */
export const EVIDENCE_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** `ev_` and 16 base64url characters (96 random bits): what button values and modal metadata carry. */
const EVIDENCE_ID = /^ev_[A-Za-z0-9_-]{16}$/;

export function isEvidenceId(value: string): boolean {
  return EVIDENCE_ID.test(value);
}

/**
 * Report rows' evidence kept server-side under short random ids, so a button value or a modal's
 * `private_metadata` never has to hold readers' text. Older buttons (the evidence itself as JSON) still load.
 */
export class HealthEvidence {
  constructor(
    private readonly store: EvidenceStore,
    private readonly ttlMs = EVIDENCE_TTL_MS,
  ) {}

  /** Keeps the evidence and answers its id; rejects when the store does. */
  async save(evidence: Evidence): Promise<string> {
    const id = `ev_${randomBytes(12).toString('base64url')}`;
    await this.store.put(id, JSON.stringify(evidence), this.ttlMs);
    return id;
  }

  /**
   * The evidence of a button value or modal reference: an id from `save`, or (buttons posted before ids)
   * the evidence JSON itself. Undefined when unknown, expired or not ours; rejects when the store does.
   */
  async load(ref: string): Promise<Evidence | undefined> {
    if (isEvidenceId(ref)) {
      const json = await this.store.get(ref);
      return json === undefined ? undefined : decodeStoredEvidence(json);
    }
    return decodeEvidenceRef(ref);
  }
}
