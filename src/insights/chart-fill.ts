import { describeError } from '../common/errors.js';
import { LazySet } from '../common/lazy-collections.js';
import type { Logger } from '../common/logger.js';
import { type AnalyticsSource, analyticsCacheKey } from './analytics-source.js';
import { CHART_BUDGET_RESERVE, type ChartRead, readNow } from './bucket-reads.js';

/** The share of the hourly budget background fills never touch: what reports of the hour may still need. */
export const FILL_KEEPS_SHARE = 1 / 2;

/**
 * Reads a chart lacks, made in the background after its report went out, one at a time: the points are
 * cached (past days for good), so later reports and weekly posts draw the chart from the cache. A fill
 * only spends while half the hourly budget (`FILL_KEEPS_SHARE`, at least `CHART_BUDGET_RESERVE`) stays
 * free for reports; below that it drops what is queued, and the next report that lacks the points queues
 * them again. Work a request started, not a timer: nothing runs while nobody asks for a chart.
 */
export class ChartFill {
  private readonly queue: ChartRead[] = [];
  private readonly queued = new LazySet<string>();
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly o: { source: AnalyticsSource; logger: Logger }) {}

  /** Queues reads (each key once); nothing starts before `run`. */
  add(reads: readonly ChartRead[]): void {
    for (const read of reads) {
      const key = analyticsCacheKey(read.key);
      if (this.queued.has(key) || this.stopped) continue;
      this.queued.add(key);
      this.queue.push(read);
    }
  }

  /** Starts working off the queue unless it already is: called once the report is out. */
  run(): void {
    if (this.running || this.stopped || this.queue.length === 0) return;
    this.running = this.drain().finally(() => {
      this.running = undefined;
    });
  }

  /** Resolves when the queue is empty or given up (tests and benchmarks wait on it). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Stops taking reads and waits for the one under way (shutdown). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.drop();
    await this.idle();
  }

  private async drain(): Promise<void> {
    const keep = Math.max(CHART_BUDGET_RESERVE, Math.ceil(this.o.source.hourlyLimit * FILL_KEEPS_SHARE));
    let done = 0;
    for (let read = this.queue.shift(); read && !this.stopped; read = this.queue.shift()) {
      this.queued.delete(analyticsCacheKey(read.key));
      if ((await this.o.source.peek(read.key)) !== undefined) continue;
      const remaining = await this.o.source.budget.remaining();
      if (remaining - read.estimate < keep) {
        this.o.logger.info(
          { filled: done, dropped: this.queue.length + 1, remaining },
          'chart fill stops: the rest of the hourly analytics budget is kept for reports',
        );
        this.drop();
        return;
      }
      try {
        await readNow(this.o.source, read);
        done += 1;
      } catch (error) {
        this.o.logger.warn({ error: describeError(error), filled: done }, 'chart fill failed; stops');
        this.drop();
        return;
      }
    }
    if (done > 0) this.o.logger.info({ filled: done }, 'chart points read in the background');
  }

  private drop(): void {
    this.queue.length = 0;
    this.queued.clear();
  }
}
