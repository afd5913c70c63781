import { describeError } from './errors.js';
import type { Logger } from './logger.js';

/** The ticker's resolution: the shortest period anything asks for (the doorbell's 50–250 ms ticks). */
export const TICK_MS = 50;

interface Entry {
  everyMs: number;
  lastAt: number;
  run: () => Promise<unknown> | unknown;
  running: boolean;
}

/**
 * The one timer of a replica for periodic work of the scopes it holds (issue 34: nothing per tenant per
 * replica, not even a timer). A scope registers what it does every so often and unregisters when it is
 * evicted or stopped; on Redis that is only a doorbell with a watched repository, the rest being found
 * through the due index (issue 43: a quiet resident tenant registers nothing); a run never overlaps its previous one, and one that throws is logged (once a minute).
 * Single-workspace mode builds one for its one scope.
 */
export class ReplicaTicker {
  private readonly entries = new Set<Entry>();
  private timer: NodeJS.Timeout | undefined;
  private loggedAt = 0;

  constructor(
    private readonly logger: Logger,
    /** True when the replica's due index finds owed work (OAuth mode on Redis): see `PeriodicRuns`. */
    readonly indexed = false,
    private readonly now: () => number = Date.now,
  ) {}

  /** Runs `run` every `everyMs` (first after one period) until the returned function is called. */
  every(everyMs: number, run: () => Promise<unknown> | unknown): () => void {
    const entry: Entry = { everyMs, lastAt: this.now(), run, running: false };
    this.entries.add(entry);
    if (!this.timer) {
      this.timer = setInterval(() => this.tick(), TICK_MS);
      this.timer.unref();
    }
    return () => {
      this.entries.delete(entry);
      if (this.entries.size === 0) this.close();
    };
  }

  /** How many periodic runs are registered (tests and /metrics). */
  size(): number {
    return this.entries.size;
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private tick(): void {
    const now = this.now();
    for (const entry of this.entries) {
      if (entry.running || now - entry.lastAt < entry.everyMs) continue;
      entry.lastAt = now;
      entry.running = true;
      Promise.resolve()
        .then(entry.run)
        .catch((error: unknown) => {
          if (now - this.loggedAt < 60_000) return;
          this.loggedAt = now;
          this.logger.warn({ error: describeError(error) }, 'a periodic run failed; trying again');
        })
        .finally(() => {
          entry.running = false;
        });
    }
  }
}
