import type { SchedulerTimers } from '../../src/state/memory/weekly-cron-scheduler.js';

/** A manual clock for the weekly scheduler: timers fire only when the test advances time. */
export class ManualTimers implements SchedulerTimers {
  private timers: Array<{ at: number; callback: () => void; id: number }> = [];
  private ids = 0;
  constructor(public current: number) {}
  now = () => this.current;
  setTimeout = (callback: () => void, ms: number) => {
    this.ids += 1;
    this.timers.push({ at: this.current + ms, callback, id: this.ids });
    return this.ids;
  };
  clearTimeout = (handle: unknown) => {
    this.timers = this.timers.filter((t) => t.id !== handle);
  };
  /** Fires every timer due by `target` in order, letting each callback's promises run before the next. */
  async advanceTo(target: number): Promise<void> {
    for (;;) {
      const due = this.timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.current = Math.max(this.current, due.at);
      due.callback();
      await new Promise((resolve) => setImmediate(resolve));
    }
    this.current = target;
  }
}
