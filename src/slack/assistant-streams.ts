import type { JobStore } from '../jobs/ports.js';

/** How long the state store remembers that a job's message is a stream (not a card), and that it is over. */
const STREAM_MARK_MS = 7 * 24 * 60 * 60 * 1000;
/**
 * How long the bot uses a stream before handing it over ("still working…"): Slack closes a stream after
 * about five minutes, so a minute earlier by default (SLACK_STREAM_HANDOVER_MS).
 */
export const STREAM_HANDOVER_MS = 4 * 60_000;

/** Where a job's streamed message stands: a card (no stream), open, due for handover, or over. */
export type StreamPhase = 'card' | 'open' | 'due' | 'over';

/**
 * The streams of jobs in assistant threads, as every replica sees them: a stream is marked in the state
 * store when it starts and marked over when anyone ends it (the result, a handover, the person's Stop), so
 * no replica appends to it afterwards. Its age is its ts (Slack's ts is the message's creation time).
 */
export class AssistantStreams {
  constructor(
    private readonly store: Pick<JobStore, 'mark' | 'isMarked'>,
    private readonly handoverMs: number = STREAM_HANDOVER_MS,
  ) {}

  remember(channelId: string, ts: string): Promise<void> {
    return this.store.mark(streamKey(channelId, ts), STREAM_MARK_MS);
  }

  /** Marked before a stream's last call is owed: from then on no replica appends to it. */
  markOver(channelId: string, ts: string): Promise<void> {
    return this.store.mark(`assistant-stream-over:${channelId}:${ts}`, STREAM_MARK_MS);
  }

  async phase(channelId: string, ts: string, now: number): Promise<StreamPhase> {
    if (!(await this.store.isMarked(streamKey(channelId, ts)))) return 'card';
    if (await this.store.isMarked(`assistant-stream-over:${channelId}:${ts}`)) return 'over';
    return now >= this.handoverAt(ts) ? 'due' : 'open';
  }

  /** When the stream is handed over (ms): its start plus the handover time. */
  handoverAt(ts: string): number {
    const started = Number(ts) * 1000;
    return Number.isFinite(started) ? started + this.handoverMs : 0;
  }
}

function streamKey(channelId: string, ts: string): string {
  return `assistant-stream:${channelId}:${ts}`;
}
