import type { JobRecord } from '../jobs/domain/job.js';

/** The one delivery of a run's result (a reply, or the end of its stream in an assistant thread). */
export function terminalKey(record: Pick<JobRecord, 'jobId' | 'generation'>): string {
  return `terminal:${record.jobId}:${record.generation}`;
}

/** The one delivery of a card's states. */
export function cardKey(channelId: string, cardTs: string): string {
  return `card:${channelId}:${cardTs}`;
}
