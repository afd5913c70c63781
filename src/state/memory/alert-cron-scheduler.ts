import { Cron } from 'croner';
import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { AlertScheduler } from '../../insights/ports.js';

/**
 * The alert check in this process: while armed (some channel subscribed), croner fires every second-aligned
 * `intervalMs` (at least a second), never overlapping itself (a slow check makes the next one wait, it is not
 * run twice at once). Unarmed, no timer exists.
 */
export class InProcessAlertScheduler implements AlertScheduler {
  private cron: Cron | undefined;
  private onTick: ((tickMs: number) => Promise<void>) | undefined;
  private armed = false;
  private running: Promise<void> | undefined;

  constructor(
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {}

  async start(onTick: (tickMs: number) => Promise<void>): Promise<void> {
    this.onTick = onTick;
    this.ensureCron();
  }

  async arm(): Promise<void> {
    this.armed = true;
    this.ensureCron();
  }

  /** Stops the timer; a check running now (possibly the caller) finishes. */
  async disarm(): Promise<void> {
    this.armed = false;
    this.cron?.stop();
    this.cron = undefined;
  }

  /** Whether a timer exists (tests). */
  get isArmed(): boolean {
    return this.cron !== undefined;
  }

  async stop(): Promise<void> {
    this.onTick = undefined;
    this.cron?.stop();
    this.cron = undefined;
    await this.running;
  }

  private ensureCron(): void {
    const onTick = this.onTick;
    if (this.cron || !this.armed || !onTick) return;
    this.cron = new Cron(
      '* * * * * *',
      { interval: Math.max(1, Math.round(this.intervalMs / 1000)), protect: true, unref: true },
      async () => {
        const tick = onTick(Math.floor(Date.now() / 1000) * 1000).catch((error: unknown) =>
          this.logger.error({ error: describeError(error) }, 'docs-health alert check failed'),
        );
        this.running = tick;
        await tick;
      },
    );
  }
}
