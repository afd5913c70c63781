import { AppError } from '../errors.js';

/**
 * Paces work per key the way Slack paces posts per channel: a burst of `burst` starts at once, then one
 * start per `intervalMs`, in arrival order. One number per key (the generic cell rate algorithm's
 * "theoretical arrival time"), one timer per delayed start: queueing a post costs about a microsecond, where
 * a Bottleneck group spent 20–50 µs of CPU per scheduled job, on the path of every `/docs-agent`.
 */
export class KeyedPacer {
  /** Per key: when the next start would be due if bursts were not allowed. Past values mean "idle". */
  private readonly due = new Map<string, number>();
  private readonly delayed = new Map<NodeJS.Timeout, (error: Error) => void>();
  private closed = false;

  constructor(
    private readonly intervalMs: number,
    private readonly burst: number,
    private readonly now: () => number = Date.now,
  ) {}

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(pacerClosed());
    const now = this.now();
    const due = Math.max(this.due.get(key) ?? now, now);
    const startAt = Math.max(now, due - (this.burst - 1) * this.intervalMs);
    if (this.due.size >= PRUNE_AT) this.prune(now);
    this.due.set(key, due + this.intervalMs);
    if (startAt <= now) return work();
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.delayed.delete(timer);
        work().then(resolve, reject);
      }, startAt - now);
      this.delayed.set(timer, reject);
    });
  }

  /** Drops every delayed start (on shutdown): their callers get a `shutting_down` error. */
  close(): void {
    this.closed = true;
    for (const [timer, reject] of this.delayed) {
      clearTimeout(timer);
      reject(pacerClosed());
    }
    this.delayed.clear();
  }

  /** Keys whose due time has passed are idle with a full burst: the same as absent. */
  private prune(now: number): void {
    for (const [key, due] of this.due) if (due <= now) this.due.delete(key);
  }
}

const PRUNE_AT = 1_000;

function pacerClosed(): AppError {
  return new AppError('shutting_down', 'The bot is shutting down; the queued message was not sent');
}
