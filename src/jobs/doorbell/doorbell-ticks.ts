/** The replica's one timer (OAuth mode), as the doorbell uses it. */
export interface DoorbellPeriodic {
  every(everyMs: number, run: () => Promise<unknown>): () => void;
}

/**
 * When the doorbell ticks. Alone (single-workspace mode): a timer of its own from start to stop. On the
 * replica's one timer (OAuth mode): only while armed, so a tenant with no watched repository registers no
 * periodic run at all (issue 43). A tick never overlaps the previous one.
 */
export class DoorbellTicks {
  private timer: NodeJS.Timeout | undefined;
  private untick: (() => void) | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;

  constructor(
    private readonly tickMs: number,
    private readonly tick: () => Promise<void>,
    private readonly periodic?: DoorbellPeriodic,
  ) {}

  start(): void {
    this.stopped = false;
    if (this.periodic) return; // armed by the first watched repository
    const loop = () => {
      if (this.stopped) return;
      this.running = this.tick().finally(() => {
        this.running = undefined;
        if (!this.stopped) this.timer = setTimeout(loop, this.tickMs).unref();
      });
    };
    // The first read one tick from now: the poll queue's handler is registered by then (start-up order).
    this.timer = setTimeout(loop, this.tickMs).unref();
  }

  /** On the replica's timer: registers the tick; true when it was not registered (a fresh start). */
  arm(): boolean {
    if (!this.periodic || this.untick || this.stopped) return false;
    this.untick = this.periodic.every(this.tickMs, () => {
      this.running = this.tick();
      return this.running;
    });
    return true;
  }

  /** On the replica's timer: unregisters the tick (nothing to read until armed again). */
  disarm(): void {
    this.untick?.();
    this.untick = undefined;
  }

  /** No tick from now on; resolves when the one under way has finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.disarm();
    await this.running;
  }
}
