/**
 * Turns on the event loop for a burst of work that would otherwise run as one synchronous task. When one
 * shared read resolves for hundreds of waiters at once (every `/docs-views` of a range waits on the same
 * fetch), each waiter's rendering, recording and sending runs back to back in one microtask drain, while the
 * acknowledgements Slack waits for sit unread (issue 43: the event loop stalled 29 ms in §1's burst).
 *
 * `take()` resolves in a check phase (`setImmediate`), one waiter per immediate: Node drains the microtasks
 * between immediates, so a waiter's synchronous work up to its next real I/O is done before the next waiter
 * goes. Once a phase has run `budgetMs`, the rest wait for the next loop iteration, after its I/O poll.
 * Waiters go in the order they asked. Scheduling only: it orders nothing between processes and guards no
 * state.
 */
export class LoopTurns {
  /** Who waits for a turn, in the order they asked. */
  private readonly waiting: Array<() => void> = [];
  /** Immediates queued to give turns: a few at a time, so a long queue costs no immediate per phase each. */
  private armed = 0;
  /** When the current check phase's first turn began; undefined between phases. */
  private phaseStart: number | undefined;

  constructor(
    private readonly budgetMs = DEFAULT_BUDGET_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Resolves when it is this caller's turn. */
  take(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.arm();
    });
  }

  private arm(): void {
    while (this.armed < Math.min(this.waiting.length, MAX_ARMED)) {
      this.armed += 1;
      setImmediate(this.turn);
    }
  }

  private readonly turn = (): void => {
    const now = this.now();
    if (this.phaseStart === undefined) {
      this.phaseStart = now;
      // Queued before any turn this phase defers, so it runs first in the next check phase and opens it.
      setImmediate(() => {
        this.phaseStart = undefined;
      });
    } else if (now - this.phaseStart >= this.budgetMs) {
      // An immediate queued during the check phase runs in the next one: the loop polls I/O in between.
      setImmediate(this.turn);
      return;
    }
    this.armed -= 1;
    this.waiting.shift()?.();
    this.arm();
  };
}

/** Turns armed at once: more than a phase's budget usually holds, few enough to re-queue cheaply. */
const MAX_ARMED = 32;

/** Well under issue 43's 10 ms per task, with room for the last turn that starts inside the budget. */
const DEFAULT_BUDGET_MS = 4;
