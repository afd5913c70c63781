import type { Logger } from '../../common/logger.js';
import type { TenantKey } from '../../tenants/tenant.js';
import type { RedisClient } from './redis-client.js';

/** What a replica is told: these tenants changed, or `all` when it may have missed some. */
export type DirectoryChange = TenantKey[] | 'all';

/** How long one XREAD waits for a change: the loop notices a close within this. */
const BLOCK_MS = 5_000;
const PAGE = 1_000;

/**
 * Follows the directory's capped stream of changes (`tenant-changes`, written by every directory script
 * in the same step as its write): O(changes), never O(tenants). One blocking connection per process. After
 * a lost connection it goes on from the last entry it read; when the cap trimmed entries it never read, or
 * when it cannot tell, it says `all` (the runtimes then re-read every scope they hold).
 */
export class DirectoryChangesTail {
  private reader: RedisClient | undefined;
  private closed = false;
  private running: Promise<void> | undefined;

  constructor(
    private readonly client: RedisClient,
    private readonly streamKey: string,
    private readonly logger: Logger,
  ) {}

  /** Resolves once the tail is reading from the stream's present end. */
  async start(listener: (change: DirectoryChange) => void): Promise<void> {
    this.reader = this.client.duplicate();
    this.reader.on('error', () => undefined); // said by the shared connections' own listeners
    await this.reader.connect();
    const last = await this.reader.xRevRange(this.streamKey, '+', '-', { COUNT: 1 });
    this.running = this.follow(last[0]?.id ?? '0-0', listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.reader?.isOpen) this.reader.destroy();
    await this.running;
  }

  private async follow(from: string, listener: (change: DirectoryChange) => void): Promise<void> {
    let lastId = from;
    let lost = false;
    while (!this.closed) {
      try {
        if (lost && (await this.trimmedPast(lastId))) listener('all');
        lost = false;
        const reply = await this.reader!.xRead([{ key: this.streamKey, id: lastId }], {
          BLOCK: BLOCK_MS,
          COUNT: PAGE,
        });
        const entries = (
          reply as Array<{ messages: Array<{ id: string; message: Record<string, string> }> }> | null
        )?.flatMap((stream) => stream.messages);
        if (!entries || entries.length === 0) continue;
        lastId = entries.at(-1)!.id;
        listener([...new Set(entries.map((entry) => entry.message.t).filter((t): t is string => !!t))]);
      } catch (error) {
        if (this.closed) return;
        // Redis away: the entries written meanwhile are read when it answers again, unless trimmed.
        if (!lost) this.logger.debug({ error: String(error) }, 'directory changes: reading again');
        lost = true;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }

  /** Whether the stream no longer holds the entry after `lastId` (trimmed by its cap while we were away). */
  private async trimmedPast(lastId: string): Promise<boolean> {
    const [first] = await this.reader!.xRange(this.streamKey, '-', '+', { COUNT: 1 });
    if (!first) return lastId !== '0-0'; // emptied (a Redis that lost its data): cannot tell
    return compareIds(first.id, lastId) > 0 && lastId !== '0-0';
  }
}

/** Stream ids `<ms>-<seq>` in order. */
function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-').map(Number) as [number, number];
  const [bm, bs] = b.split('-').map(Number) as [number, number];
  return am === bm ? as - bs : am - bm;
}
