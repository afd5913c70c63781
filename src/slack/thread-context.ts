import type { SlackAppTier } from '../common/config.js';
import { describeError } from '../common/errors.js';
import { LazyMap } from '../common/lazy-collections.js';
import type { Logger } from '../common/logger.js';
import {
  type EarlierMessage,
  type MessageReader,
  readEarlierMessages,
  readMessage,
  type ThreadContext,
  type ThreadRead,
  type ThreadReader,
} from './listeners/actions/thread-reads.js';
import type { SourceMessage } from './message-source.js';
import type { HistoryPageArgs, SlackGateway } from './slack-gateway.js';
import { SlackBudgetSpentError } from './slack-pacing.js';

/** Threads remembered per workspace (the last ones a form was opened on), and how long. */
const MAX_REMEMBERED = 50;
const REMEMBER_MS = 30 * 60 * 1000;

/**
 * `ThreadContext` over the gateway's paced thread reads: a form takes the read only if its slot is free
 * now (a distributed app's once a minute may be spent), and what it read is remembered for half an hour
 * (a modal's life), so the submission starting the job does not read the thread a second time.
 */
export class BudgetedThreadContext implements ThreadContext {
  private readonly read = new LazyMap<string, { at: number; read: ThreadRead }>();

  constructor(
    private readonly gateway: Pick<SlackGateway, 'readPage'>,
    private readonly logger: Logger,
    private readonly now_: () => number = Date.now,
    readonly appTier: SlackAppTier = 'internal',
  ) {}

  async now(
    channelId: string,
    threadTs: string,
    messageTs: string,
    homeTeam?: string,
  ): Promise<ThreadRead | undefined> {
    const known = this.remembered(channelId, threadTs, messageTs);
    if (known) return known;
    try {
      return this.remember(
        channelId,
        threadTs,
        messageTs,
        await readEarlierMessages(this.reader(true), channelId, threadTs, messageTs, homeTeam),
      );
    } catch (error) {
      if (!(error instanceof SlackBudgetSpentError))
        this.logger.info(
          { channelId, error: describeError(error) },
          "could not read the thread's earlier messages for the form",
        );
      return undefined;
    }
  }

  async inTurn(
    channelId: string,
    threadTs: string,
    messageTs: string,
    homeTeam?: string,
  ): Promise<EarlierMessage[]> {
    const known = this.remembered(channelId, threadTs, messageTs);
    if (known) return known.messages;
    try {
      const read = await readEarlierMessages(this.reader(false), channelId, threadTs, messageTs, homeTeam);
      return this.remember(channelId, threadTs, messageTs, read).messages;
    } catch (error) {
      this.logger.info(
        { channelId, error: describeError(error) },
        "could not read the thread's earlier messages; the job starts without them",
      );
      return [];
    }
  }

  /** The message at `ts` (top level, else a reply): in its methods' turn, or only if free `now`. */
  message(channelId: string, ts: string, options = { now: false }): Promise<SourceMessage | undefined> {
    return readMessage(this.reader(options.now), channelId, ts);
  }

  private reader(now: boolean): ThreadReader & MessageReader {
    const page = (method: 'conversations.history' | 'conversations.replies') => (args: HistoryPageArgs) =>
      this.gateway.readPage(method, args, { now }) as Promise<{
        messages?: SourceMessage[];
        has_more?: boolean;
      }>;
    return {
      conversations: { history: page('conversations.history'), replies: page('conversations.replies') },
    };
  }

  private remembered(channelId: string, threadTs: string, messageTs: string): ThreadRead | undefined {
    const key = `${channelId}:${threadTs}:${messageTs}`;
    const entry = this.read.get(key);
    if (entry && this.now_() - entry.at < REMEMBER_MS) return entry.read;
    this.read.delete(key);
    return undefined;
  }

  private remember(channelId: string, threadTs: string, messageTs: string, read: ThreadRead): ThreadRead {
    const key = `${channelId}:${threadTs}:${messageTs}`;
    this.read.delete(key);
    this.read.set(key, { at: this.now_(), read });
    if (this.read.size > MAX_REMEMBERED) this.read.delete(this.read.keys().next().value as string);
    return read;
  }
}
