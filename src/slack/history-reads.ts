import { AppError } from '../common/errors.js';
import type { HistoryAnswers, SharedAnswer } from '../common/history-answers.js';
import { LazyMap } from '../common/lazy-collections.js';
import { type Conversation, type LookupOptions, type ReadPage, readCopies } from './message-lookup.js';

/** What a look-up or a sweep asks: the copies of `key` in a conversation since its record was made. */
export interface CopiesQuery extends Conversation {
  key: string;
  sinceMs: number;
}

/** The read that serves a query has not come yet: the outbox retries, and the query keeps its place. */
export class LookupPendingError extends AppError<'lookup_pending'> {}

interface Answer {
  /** When the read started (its slot came): it answers queries first asked before then. */
  startedAt: number;
  /** The earliest record its window covered. */
  sinceMs: number;
  copies: Map<string, string[]>;
}

interface Read {
  /** Undefined while the read waits for its slot: everyone asking meanwhile joins it. */
  startedAt: number | undefined;
  sinceMs: number;
  /** The latest first-ask of those who joined: another replica's read since then answers all of them. */
  askedAt: number;
  answer: Promise<Answer>;
}

/** Bounds of what is remembered per workspace (each entry is small; a burst of look-ups stays bounded). */
const MAX_ANSWERS = 500;
const MAX_ASKED = 5_000;
/** Clock skew allowed between this process and the shared store when the store did not answer. */
const SKEW_MS = 1_000;

export interface HistoryReadsOptions extends LookupOptions {
  now: () => number;
  /** Replicas' shared answers (Redis); absent: this process answers alone. */
  shared?: HistoryAnswers | undefined;
  onSharedFailure?: (error: unknown) => void;
}

/**
 * History reads are scarce (a distributed app gets one conversations.history and one .replies a minute per
 * workspace), so look-ups and sweeps share them: everyone waiting on a conversation registers, and the next
 * read of it (the next slot of its method) answers all of them at once, one thread read for every record in
 * that thread, one channel read for every top-level record. A query is answered only by a read that started
 * after it was first asked (a copy that landed before then is seen); one not answered within `waitMs`
 * rejects with `lookup_pending` and keeps its place, so the outbox's retry is answered by that read. With
 * `shared`, the replicas' reads answer each other's queries, and a read that another replica's answers
 * already cover is skipped.
 */
export class HistoryReads {
  private readonly waiting = new LazyMap<string, Read>();
  private readonly answers = new LazyMap<string, Answer>();
  private readonly asked = new LazyMap<string, number>();

  constructor(
    private readonly read: ReadPage,
    private readonly eventType: string,
    private readonly options: HistoryReadsOptions,
  ) {}

  /**
   * Copies of `query.key`, oldest first, from the first read that started after it was first asked. A
   * `sweep` joins any read of the conversation; its own reads queue after every look-up's (`refresh`).
   */
  async copies(
    query: CopiesQuery,
    waitMs: number,
    purpose: 'lookup' | 'sweep' = 'lookup',
  ): Promise<string[]> {
    const conversation = `${query.channel}:${query.threadTs ?? ''}`;
    const askedAt = await this.firstAsked(conversation, query.key);
    const serves = (r: { startedAt: number | undefined; sinceMs: number }) =>
      r.startedAt !== undefined && r.startedAt >= askedAt && r.sinceMs <= query.sinceMs;
    const known = await this.known(conversation, serves);
    const answer =
      known ?? (await within(this.join(conversation, query, askedAt, serves, purpose).answer, waitMs));
    this.asked.delete(`${conversation}|${query.key}`);
    this.options.shared?.answered(conversation, query.key).catch(this.sharedFailed);
    return answer.copies.get(query.key) ?? [];
  }

  /** The read that will serve `query`: one under way that started after it was asked, else the next one. */
  private join(
    conversation: string,
    query: CopiesQuery,
    askedAt: number,
    serves: (r: Read) => boolean,
    purpose: 'lookup' | 'sweep',
  ): Read {
    // A sweep rides on a look-up's read of the conversation if there is one; a look-up never waits on a sweep's.
    const candidates = purpose === 'sweep' ? ['lookup', 'sweep'] : ['lookup'];
    for (const kind of candidates) {
      const next = this.waiting.get(`${conversation}#${kind}`);
      if (next?.startedAt === undefined && next) {
        next.sinceMs = Math.min(next.sinceMs, query.sinceMs);
        next.askedAt = Math.max(next.askedAt, askedAt);
        return next;
      }
      if (next && serves(next)) return next;
    }
    const slot = `${conversation}#${purpose}`;
    // `answer` is set right below, from the read that needs this record.
    const read = { startedAt: undefined, sinceMs: query.sinceMs, askedAt } as Read;
    let other: Answer | undefined;
    // Called when the read's slot has come, before the call: its window is fixed now.
    const start = async () => {
      if (read.startedAt !== undefined) return read.sinceMs;
      read.startedAt = await this.clock(-SKEW_MS);
      // Read since everyone here asked (a look-up's read, another replica's): nothing new to learn.
      const covers = (a: Answer | undefined) =>
        a !== undefined && a.startedAt >= read.askedAt && a.sinceMs <= read.sinceMs;
      const local = this.answers.get(conversation);
      other = covers(local) ? local : await this.sharedAnswer(conversation);
      if (covers(other)) return undefined;
      other = undefined;
      return read.sinceMs;
    };
    const priority = purpose === 'sweep' ? 'refresh' : 'reply';
    const options = { ...this.options, priority } as const;
    read.answer = readCopies(this.read, query, start, this.eventType, options).then((copies) => {
      if (!copies) return other!;
      const answer = { startedAt: read.startedAt!, sinceMs: read.sinceMs, copies };
      remember(this.answers, conversation, answer, MAX_ANSWERS);
      this.options.shared
        ?.put(conversation, { ...answer, copies: Object.fromEntries(copies) })
        .catch(this.sharedFailed);
      return answer;
    });
    read.answer
      .finally(() => {
        if (this.waiting.get(slot) === read) this.waiting.delete(slot);
      })
      .catch(() => undefined);
    this.waiting.set(slot, read);
    return read;
  }

  /** A read already made that serves the query: this process's, else the replicas' (kept here too). */
  private async known(conversation: string, serves: (a: Answer) => boolean): Promise<Answer | undefined> {
    const local = this.answers.get(conversation);
    if (local && serves(local)) return local;
    const shared = await this.sharedAnswer(conversation);
    if (!shared || !serves(shared)) return undefined;
    remember(this.answers, conversation, shared, MAX_ANSWERS);
    return shared;
  }

  private async sharedAnswer(conversation: string): Promise<Answer | undefined> {
    const shared: SharedAnswer | undefined = await this.options.shared
      ?.latest(conversation)
      .catch((error: unknown) => {
        this.sharedFailed(error);
        return undefined;
      });
    return shared && { ...shared, copies: new Map(Object.entries(shared.copies)) };
  }

  /** When the query was first asked: the shared store's record (its clock), else this process's. */
  private async firstAsked(conversation: string, key: string): Promise<number> {
    const local = `${conversation}|${key}`;
    const shared = this.options.shared;
    if (shared) {
      try {
        return await shared.firstAsked(conversation, key);
      } catch (error) {
        this.sharedFailed(error);
      }
    }
    const askedAt = this.asked.get(local) ?? (await this.clock(SKEW_MS));
    remember(this.asked, local, askedAt, MAX_ASKED);
    return askedAt;
  }

  /**
   * Now, on the shared store's clock when there is one. If it does not answer, this process's clock moved by
   * `skewMs` in the safe direction: asks later (+), reads earlier (-), so a read never seems newer than it is.
   */
  private async clock(skewMs: number): Promise<number> {
    const shared = this.options.shared;
    if (shared) {
      try {
        return await shared.now();
      } catch (error) {
        this.sharedFailed(error);
        return this.options.now() + skewMs;
      }
    }
    return this.options.now();
  }

  private readonly sharedFailed = (error: unknown): void => this.options.onSharedFailure?.(error);
}

/** Sets `key` last in insertion order, dropping the oldest entry past `max`. */
function remember<V>(map: LazyMap<string, V>, key: string, value: V, max: number): void {
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
