import { AppError } from '../common/errors.js';
import { type Conversation, type LookupOptions, type ReadPage, readCopies } from './message-lookup.js';

/** What a look-up or a sweep asks: the copies of `key` in a conversation since its record was made. */
export interface CopiesQuery extends Conversation {
  key: string;
  sinceMs: number;
}

/** The read that serves a query has not come yet: the outbox retries, and the query keeps its place. */
export class LookupPendingError extends AppError<'lookup_pending'> {}

interface Read {
  /** When the read's first page started (its slot came); undefined while it waits for the slot. */
  startedAt: number | undefined;
  /** The earliest record of everyone who joined before the read started: the window's start. */
  sinceMs: number;
  copies: Promise<Map<string, string[]>>;
}

interface Answer {
  startedAt: number;
  sinceMs: number;
  copies: Map<string, string[]>;
}

/** Bounds of what is remembered per workspace (each entry is small; a burst of look-ups stays bounded). */
const MAX_ANSWERS = 500;
const MAX_ASKED = 5_000;

/**
 * History reads are scarce (a distributed app gets one conversations.history and one .replies a minute per
 * workspace), so look-ups and sweeps share them: everyone waiting on a conversation registers, and the next
 * read of it (the next slot of its method) answers all of them at once, one thread read for every record in
 * that thread, one channel read for every top-level record. A query is answered only by a read that started
 * after it was first asked (a copy that landed before then is seen); one not answered within `waitMs`
 * rejects with `lookup_pending` and keeps its place, so the outbox's retry is answered by that read.
 */
export class HistoryReads {
  private readonly waiting = new Map<string, Read>();
  private readonly answers = new Map<string, Answer>();
  private readonly asked = new Map<string, number>();

  constructor(
    private readonly read: ReadPage,
    private readonly eventType: string,
    private readonly options: LookupOptions & { now: () => number },
  ) {}

  /** Copies of `query.key`, oldest first, from the first read that started after it was first asked. */
  async copies(query: CopiesQuery, waitMs: number): Promise<string[]> {
    const conversation = `${query.channel}:${query.threadTs ?? ''}`;
    const askedKey = `${conversation}|${query.key}`;
    const askedAt = this.asked.get(askedKey) ?? this.options.now();
    remember(this.asked, askedKey, askedAt, MAX_ASKED);
    const serves = (r: { startedAt: number | undefined; sinceMs: number }) =>
      r.startedAt !== undefined && r.startedAt >= askedAt && r.sinceMs <= query.sinceMs;
    const answer = this.answers.get(conversation);
    if (answer && serves(answer)) return this.answered(askedKey, answer.copies, query.key);
    const copies = await within(this.join(conversation, query, serves).copies, waitMs);
    return this.answered(askedKey, copies, query.key);
  }

  private answered(askedKey: string, copies: Map<string, string[]>, key: string): string[] {
    this.asked.delete(askedKey);
    return copies.get(key) ?? [];
  }

  /** The read that will serve `query`: one under way that started after it was asked, else the next one. */
  private join(conversation: string, query: CopiesQuery, serves: (r: Read) => boolean): Read {
    const next = this.waiting.get(conversation);
    if (next && (next.startedAt === undefined || serves(next))) {
      if (next.startedAt === undefined) next.sinceMs = Math.min(next.sinceMs, query.sinceMs);
      return next;
    }
    const read: Read = { startedAt: undefined, sinceMs: query.sinceMs, copies: Promise.resolve(new Map()) };
    const started = () => {
      if (read.startedAt !== undefined) return read.sinceMs;
      read.startedAt = this.options.now();
      return read.sinceMs;
    };
    read.copies = readCopies(this.read, query, started, this.eventType, this.options).then((copies) => {
      if (read.startedAt !== undefined)
        remember(
          this.answers,
          conversation,
          { startedAt: read.startedAt, sinceMs: read.sinceMs, copies },
          MAX_ANSWERS,
        );
      return copies;
    });
    read.copies
      .finally(() => {
        if (this.waiting.get(conversation) === read) this.waiting.delete(conversation);
      })
      .catch(() => undefined);
    this.waiting.set(conversation, read);
    return read;
  }
}

/** Sets `key` last in insertion order, dropping the oldest entry past `max`. */
function remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value as string);
}

async function within<T>(work: Promise<T>, waitMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(new LookupPendingError('lookup_pending', 'the read of this conversation has not come yet')),
      waitMs,
    );
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
