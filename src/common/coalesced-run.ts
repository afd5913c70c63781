/**
 * One run at a time: a call while a run is under way makes it run once more when it ends, and every caller
 * waits for that (so a caller always sees a run that started after its call).
 */
export class CoalescedRun {
  private running: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly once: () => Promise<void>,
    private readonly stopped: () => boolean = () => false,
  ) {}

  run(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.once();
        } while (this.again && !this.stopped());
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  /** The run under way, if any (waited for at shutdown). */
  current(): Promise<void> | undefined {
    return this.running;
  }
}
