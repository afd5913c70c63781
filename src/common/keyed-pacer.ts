import { boundedDelay } from './backoff.js';
import { AppError } from './errors.js';

interface Waiting {
  start: () => void;
  reject: (error: Error) => void;
}

interface KeyState {
  /** When the next start would be due if bursts were not allowed (GCRA's "theoretical arrival time"). */
  due: number;
  /** Waiting work by priority, 0 first; arrival order within a priority. */
  queues: Waiting[][];
  timer: NodeJS.Timeout | undefined;
  /** A `runUntilStarted` call holds the key's next start until its work has actually started. */
  starting: boolean;
}

/**
 * Paces work per key the way Slack rate-limits (per channel, per method): a burst of `burst` starts at
 * once, then one start per `intervalMs`. Work that has to wait is queued per key and started by priority
 * (0 first, then arrival order), so a user-visible answer queued behind a hundred card refreshes is the
 * next one out. One timer per waiting key: queueing costs about a microsecond. A key idle again (its whole
 * burst back, nothing waiting) is the same as a key never used, so a sweep forgets it, and the table goes
 * with the last key: a tenant's pacers keep nothing once its job's posts are over (issue 43 §2).
 */
export class KeyedPacer {
  /** Made on the first key, dropped once the sweep finds every key idle. */
  private keys: Map<string, KeyState> | undefined;
  /** One per pacer while it holds keys (unref'd): forgets idle keys. */
  private sweep: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly intervalMs: number,
    private readonly burst: number,
    private readonly now: () => number = Date.now,
    /** Work waiting per key at most; more is refused (`pacer_queue_full`) instead of waiting ever longer. */
    private readonly maxQueuePerKey = Number.POSITIVE_INFINITY,
    /** Called when the sweep has forgotten the last key: the pacer is as new (its owner may drop it). */
    private readonly onEmpty?: () => void,
  ) {}

  run<T>(key: string, work: () => Promise<T>, priority = 0): Promise<T> {
    if (this.closed) return Promise.reject(pacerClosed());
    const now = this.now();
    if ((this.keys?.size ?? 0) >= PRUNE_AT) this.prune(now);
    const state = this.state(key, now);
    if (!state.timer && !state.starting && this.startable(state, now)) {
      this.take(state, now);
      return work();
    }
    if (this.waiting(key) >= this.maxQueuePerKey) return Promise.reject(queueFull(this.maxQueuePerKey));
    return new Promise<T>((resolve, reject) => {
      const start = () => void work().then(resolve, reject);
      this.enqueue(key, state, now, priority, { start, reject });
    });
  }

  /**
   * Like `run`, but the key's next start also waits until this work calls `started` (or settles): for
   * work that first waits elsewhere (replicas' shared slots), so what queues here keeps its priority
   * order instead of every queued item moving on at its own pace into a queue that knows no priorities.
   */
  runUntilStarted<T>(key: string, work: (started: () => void) => Promise<T>, priority = 0): Promise<T> {
    if (this.closed) return Promise.reject(pacerClosed());
    const now = this.now();
    if ((this.keys?.size ?? 0) >= PRUNE_AT) this.prune(now);
    const state = this.state(key, now);
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        state.starting = true;
        let released = false;
        const started = () => {
          if (released) return;
          released = true;
          state.starting = false;
          if (!this.closed && state.queues.some((queue) => queue.length > 0))
            this.arm(key, state, this.now());
        };
        // A throw before the work's first await still releases the key.
        void Promise.resolve()
          .then(() => work(started))
          .then(resolve, reject)
          .finally(started);
      };
      if (!state.timer && !state.starting && this.startable(state, now)) {
        this.take(state, now);
        start();
      } else this.enqueue(key, state, now, priority, { start, reject });
    });
  }

  /**
   * Takes `key`'s next start if it comes within `maxWaitMs` (nothing queued or starting on the key, which go
   * first): for work only worth doing soon (a form whose trigger expires in 3 s), never queued. Answers how
   * long until the start (0: now), which is the caller's from this moment, so nothing queued later takes it
   * and no second check after the wait can miss it; -1 (nothing taken) when no start comes that soon.
   */
  takeWithin(key: string, maxWaitMs: number): number {
    if (this.closed) return -1;
    const now = this.now();
    const state = this.state(key, now);
    if (state.timer || state.starting) return -1;
    const wait = Math.max(0, Math.max(state.due, now) - (this.burst - 1) * this.intervalMs - now);
    if (wait > maxWaitMs) return -1;
    this.take(state, now);
    return wait;
  }

  /** Gives back a start `takeWithin` took but did not use (the replicas' shared slot was not free after all). */
  giveBack(key: string): void {
    const state = this.keys?.get(key);
    if (state) state.due = Math.max(this.now(), state.due - this.intervalMs);
  }

  private enqueue(key: string, state: KeyState, now: number, priority: number, waiting: Waiting): void {
    const level = Math.max(0, Math.floor(priority));
    while (state.queues.length <= level) state.queues.push([]);
    state.queues[level]!.push(waiting);
    if (!state.starting) this.arm(key, state, now);
  }

  /** Nothing starts on `key` before `untilMs` (Slack answered 429 with Retry-After). */
  holdUntil(key: string, untilMs: number): void {
    if (Number.isNaN(untilMs)) return;
    const state = this.state(key, this.now());
    state.due = Math.max(state.due, untilMs + (this.burst - 1) * this.intervalMs);
    if (state.timer) {
      clearTimeout(state.timer);
      state.timer = undefined;
      this.arm(key, state, this.now());
    }
  }

  /** Work waiting on `key` (for tests and metrics). */
  waiting(key: string): number {
    return this.keys?.get(key)?.queues.reduce((sum, q) => sum + q.length, 0) ?? 0;
  }

  /** Drops all waiting work (on shutdown): its callers get a `shutting_down` error. */
  close(): void {
    this.closed = true;
    clearTimeout(this.sweep);
    this.sweep = undefined;
    for (const state of this.keys?.values() ?? []) {
      clearTimeout(state.timer);
      for (const queue of state.queues) for (const waiting of queue) waiting.reject(pacerClosed());
    }
    this.keys = undefined;
  }

  /** Keys held (idle ones not yet forgotten included), for tests. */
  keysHeld(): number {
    return this.keys?.size ?? 0;
  }

  private state(key: string, now: number): KeyState {
    this.keys ??= new Map();
    let state = this.keys.get(key);
    if (!state) {
      state = { due: now, queues: [], timer: undefined, starting: false };
      this.keys.set(key, state);
      this.armSweep(now);
    }
    return state;
  }

  /** Forgets idle keys once the soonest due time has passed (never sooner than an interval), until none is left. */
  private armSweep(now: number): void {
    if (this.sweep || this.closed || !this.keys) return;
    let soonest = Number.POSITIVE_INFINITY;
    for (const state of this.keys.values()) soonest = Math.min(soonest, state.due);
    this.sweep = setTimeout(
      () => {
        this.sweep = undefined;
        const at = this.now();
        this.prune(at);
        if (this.keys?.size !== 0) return this.armSweep(at);
        this.keys = undefined;
        this.onEmpty?.();
      },
      boundedDelay(Math.max(this.intervalMs, soonest - now)),
    );
    this.sweep.unref();
  }

  private startable(state: KeyState, now: number): boolean {
    return Math.max(state.due, now) - (this.burst - 1) * this.intervalMs <= now;
  }

  private take(state: KeyState, now: number): void {
    state.due = Math.max(state.due, now) + this.intervalMs;
  }

  private arm(key: string, state: KeyState, now: number): void {
    if (state.timer) return;
    // Bounded: a hold past Node's timer limit would otherwise fire after 1 ms, over and over.
    const wait = boundedDelay(Math.max(state.due, now) - (this.burst - 1) * this.intervalMs - now);
    state.timer = setTimeout(() => {
      state.timer = undefined;
      this.drain(key, state);
    }, wait);
  }

  private drain(key: string, state: KeyState): void {
    const now = this.now();
    // A starting item re-arms the key when it has started.
    while (!state.starting && this.startable(state, now)) {
      const next = state.queues.find((queue) => queue.length > 0)?.shift();
      if (!next) return;
      this.take(state, now);
      next.start();
    }
    if (!state.starting && state.queues.some((queue) => queue.length > 0)) this.arm(key, state, now);
  }

  /** Keys whose due time has passed and that have nothing waiting are idle with a full burst. */
  private prune(now: number): void {
    for (const [key, state] of this.keys ?? [])
      if (state.due <= now && !state.timer && !state.starting && state.queues.every((q) => q.length === 0))
        this.keys?.delete(key);
  }
}

const PRUNE_AT = 1_000;

function pacerClosed(): AppError {
  return new AppError('shutting_down', 'The bot is shutting down; the queued Slack call was not sent');
}

/** The key's queue is full: the caller tells its user to try later rather than wait behind everyone. */
export class PacerQueueFullError extends AppError<'pacer_queue_full'> {}

function queueFull(max: number): PacerQueueFullError {
  return new PacerQueueFullError(
    'pacer_queue_full',
    `${max} calls are already waiting; this one was not queued`,
  );
}
