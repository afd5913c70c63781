import { createHash } from 'node:crypto';
import type { Evidence } from '../insights/health/evidence.js';
import { evidenceKey } from '../insights/health/evidence.js';
import { decodeEvidenceRef } from '../insights/health/evidence-ref.js';
import type { JobRecord } from '../jobs/domain/job.js';
import { threadLink } from './messages/job-list.js';

/**
 * One gap of one channel, as a claim key: its kind and evidence key (readers' text, so hashed: fixed length,
 * nothing of theirs in a store key). Two Fix submissions for the same gap race for this key in the job
 * store (SET NX on Redis, likewise in memory), so only one of them can start a job.
 */
export function fixClaimKey(channelId: string, evidence: Evidence): string {
  const gap = createHash('sha256')
    .update(`${evidence.kind}\u0000${evidenceKey(evidence)}`)
    .digest('hex');
  return `health-fix:${channelId}:${gap.slice(0, 32)}`;
}

/** The watched job of `records` that fixes the same gap as `evidence`, if any. */
export function runningFixOf(records: readonly JobRecord[], evidence: Evidence): JobRecord | undefined {
  const key = `${evidence.kind}\u0000${evidenceKey(evidence)}`;
  return records.find((record) => {
    if (record.origin !== 'health_fix' || record.evidenceRef === undefined) return false;
    const fixed = decodeEvidenceRef(record.evidenceRef);
    return fixed !== undefined && `${fixed.kind}\u0000${evidenceKey(fixed)}` === key;
  });
}

/** A link to a job's card, opened in its thread when the card is a reply. */
export function cardLink(record: Pick<JobRecord, 'channelId' | 'threadTs' | 'cardTs'>): string {
  const link = threadLink(record.channelId, record.cardTs);
  return record.threadTs === record.cardTs
    ? link
    : `${link}?thread_ts=${record.threadTs}&cid=${encodeURIComponent(record.channelId)}`;
}

/** The private one-line refusal of a second fix for a gap whose job is running. */
export function fixRunningText(record: Pick<JobRecord, 'channelId' | 'threadTs' | 'cardTs'>): string {
  return `I didn't start a second fix: a job is already fixing this gap, see <${cardLink(record)}|its thread>.`;
}

/** The refusal while another person's fix for the same gap is starting (its card is not posted yet). */
export function fixStartingText(channelId: string, threadTs: string | undefined): string {
  const where = threadTs ? `<${threadLink(channelId, threadTs)}|this thread>` : `<#${channelId}>`;
  return `I didn't start a second fix: someone started one for this gap a moment ago; its card is on its way to ${where}.`;
}
