import { describeError } from '../common/errors.js';
import { LazyMap } from '../common/lazy-collections.js';
import type { Logger } from '../common/logger.js';

/** One piece of work nobody may be holding, checked on its own period. */
export interface ReconcileTask {
  name: string;
  everyMs: number;
  /** Idempotent: safe in every replica at once, and again after a partial run. */
  run(): Promise<unknown>;
  /**
   * Found by the replica's due index instead of a period (OAuth mode on Redis: every write that makes such
   * work due marks its tenant there, see src/composition/oauth/reconcile-plane.ts).
   */
  indexed?: boolean;
}

/**
 * Runs in every replica, leader-free: each task finds work nobody holds (deliveries whose lease expired or
 * whose retry is due, watched jobs without a pending poll, stranded wake-ups) and hands it on. Start-up is
 * one call of `runOnce`; after that the periods keep it so. A run never overlaps the previous one of the
 * same task, and a failing run (Redis down) is logged once a minute and tried again on the next tick.
 */
/** A replica's one timer (OAuth mode): scopes register their periods there instead of owning timers. */
export interface PeriodicRuns {
  every(everyMs: number, run: () => Promise<unknown>): () => void;
  /** True when the replica runs indexed tasks from its due index (then they get no period). */
  indexed?: boolean;
}

export class Reconciler {
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly unregister: Array<() => void> = [];
  private readonly running = new LazyMap<string, Promise<unknown>>();
  private readonly loggedAt = new LazyMap<string, number>();
  private stopped = false;

  constructor(
    private readonly tasks: ReconcileTask[],
    private readonly logger: Logger,
    /** The replica's timer, shared by every scope; without one, a timer per task (single-workspace mode). */
    private readonly periodic?: PeriodicRuns,
  ) {}

  /** Every task once, now (start-up); resolves when all have run. */
  async runOnce(): Promise<void> {
    await Promise.all(this.tasks.map((task) => this.tick(task)));
  }

  /** The indexed tasks once, now (the due index named this scope); resolves when they have run. */
  async runIndexed(): Promise<void> {
    await Promise.all(this.tasks.filter((task) => task.indexed).map((task) => this.tick(task)));
  }

  start(): void {
    if (this.stopped || this.timers.length > 0 || this.unregister.length > 0) return;
    for (const task of this.tasks) {
      if (this.periodic) {
        if (task.indexed && this.periodic.indexed) continue;
        this.unregister.push(this.periodic.every(task.everyMs, () => this.tick(task)));
        continue;
      }
      const timer = setInterval(() => void this.tick(task), task.everyMs);
      timer.unref();
      this.timers.push(timer);
    }
  }

  /** Stops the periods and waits (bounded by the caller) for runs under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    this.timers.length = 0;
    for (const stop of this.unregister.splice(0)) stop();
    await Promise.all([...this.running.values()]);
  }

  private tick(task: ReconcileTask): Promise<unknown> {
    const under = this.running.get(task.name);
    if (under || this.stopped) return under ?? Promise.resolve();
    const run = task
      .run()
      .catch((error: unknown) => {
        const last = this.loggedAt.get(task.name) ?? 0;
        if (Date.now() - last < 60_000) return;
        this.loggedAt.set(task.name, Date.now());
        this.logger.warn({ task: task.name, error: describeError(error) }, 'reconcile run failed; retrying');
      })
      .finally(() => this.running.delete(task.name));
    this.running.set(task.name, run);
    return run;
  }
}
