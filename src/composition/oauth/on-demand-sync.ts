import type { Clock } from '../../common/clock.js';

/** A request from a team not known here triggers at most one look at the directory per this interval. */
export const ON_DEMAND_SYNC_MS = 1_000;

/** The look at the directory requests from unknown teams share: at most one per ON_DEMAND_SYNC_MS. */
export class OnDemandSync {
  private last = 0;
  private pending: Promise<void> | undefined;

  constructor(
    private readonly sync: () => Promise<void>,
    private readonly clock: Clock,
  ) {}

  run(): Promise<void> {
    if (!this.pending) {
      const wait = Math.max(0, this.last + ON_DEMAND_SYNC_MS - this.clock.now());
      // Always after a timer: the look is over (and a later request schedules the next) only once it ran.
      const timer = new Promise<void>((resolve) => setTimeout(resolve, Math.min(wait, ON_DEMAND_SYNC_MS)));
      this.pending = timer.then(() => {
        this.last = this.clock.now();
        this.pending = undefined;
        return this.sync().catch(() => undefined);
      });
    }
    return this.pending;
  }
}
