import type { SchedulerTimers } from '../src/state/adapters.js';

/**
 * The weekly scheduler's time: the real clock and timers, which the scenario bar can move forward to the next
 * timer (a weekly post now rather than on Monday morning). Only the weekly scheduler reads it.
 */
export class ShiftableTimers implements SchedulerTimers {
  private offset = 0;
  private readonly pending = new Map<number, { at: number; callback: () => void; handle: NodeJS.Timeout }>();
  private ids = 0;
  now = () => Date.now() + this.offset;
  setTimeout = (callback: () => void, ms: number) => {
    this.ids += 1;
    const id = this.ids;
    const handle = setTimeout(() => {
      this.pending.delete(id);
      callback();
    }, ms);
    handle.unref();
    this.pending.set(id, { at: this.now() + ms, callback, handle });
    return id;
  };
  clearTimeout = (id: unknown) => {
    const timer = this.pending.get(id as number);
    if (timer) clearTimeout(timer.handle);
    this.pending.delete(id as number);
  };
  /** Moves time forward to `target`, firing every timer due by then in order (a bounded number). */
  advanceTo(target: number): void {
    for (let fired = 0; fired < 100; fired += 1) {
      const [id, next] =
        [...this.pending].filter(([, t]) => t.at <= target).sort((a, b) => a[1].at - b[1].at)[0] ?? [];
      if (id === undefined || !next) break;
      this.offset = Math.max(this.offset, next.at - Date.now());
      this.clearTimeout(id);
      next.callback();
    }
    this.offset = Math.max(this.offset, target - Date.now());
  }
  get count(): number {
    return this.pending.size;
  }
}
