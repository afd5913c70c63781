import type { ServerResponse } from 'node:http';
import { sendJson } from './http.js';

/**
 * Faults for one kind of call only (e.g. the posts in one job's thread), checked before the per-method
 * ones of `FakeSlack.inject`:
 * - `hold`: the call is never stored and never answered (the post never reached Slack); the caller's
 *   timeout, or its death, ends it.
 * - `late`: the call is stored (after `storeAfterMs`, default at once) but answered only after `ms`: it
 *   landed, the caller timed out. A store later than the caller's look-up makes a duplicate to sweep.
 *   With `status` (e.g. 503) the answer is that HTTP error instead: it landed, yet the caller is told it
 *   failed (Slack's 5xx after storing the message).
 */
export type HeldFault =
  | { kind: 'hold' }
  | { kind: 'late'; ms: number; storeAfterMs?: number; status?: number };

interface Armed {
  method: string;
  when: (args: Record<string, unknown>) => boolean;
  fault: HeldFault;
  left: number;
}

export class HeldCalls {
  private readonly armed: Armed[] = [];
  /**
   * Every call a fault was applied to, in order (`at`: when it arrived; `closedAt`: when its caller closed
   * the connection before an answer, a time-out or the process ending).
   */
  readonly hit: Array<{
    method: string;
    args: Record<string, unknown>;
    fault: HeldFault;
    at: number;
    closedAt?: number;
  }> = [];

  /** The next `times` calls of `method` matching `when` get `fault`. */
  add(method: string, when: (args: Record<string, unknown>) => boolean, fault: HeldFault, times = 1): void {
    this.armed.push({ method, when, fault, left: times });
  }

  /** Disarms every fault not used yet. */
  clear(): void {
    this.armed.length = 0;
  }

  /** Applies a matching fault; true when it answered (or deliberately never will). */
  async apply(
    method: string,
    args: Record<string, unknown>,
    res: ServerResponse,
    answer: () => Record<string, unknown>,
  ): Promise<boolean> {
    const armed = this.armed.find((a) => a.method === method && a.left > 0 && a.when(args));
    if (!armed) return false;
    armed.left -= 1;
    const hit: (typeof this.hit)[number] = { method, args, fault: armed.fault, at: Date.now() };
    this.hit.push(hit);
    res.on('close', () => {
      if (!res.writableEnded) hit.closedAt = Date.now();
    });
    const fault = armed.fault;
    if (fault.kind === 'hold') return true;
    const storeAfterMs = fault.storeAfterMs ?? 0;
    await new Promise((resolve) => setTimeout(resolve, storeAfterMs));
    const body = answer();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, fault.ms - storeAfterMs)));
    if (res.destroyed) return true;
    if (fault.status) sendJson(res, fault.status, { ok: false, error: 'fault' });
    else sendJson(res, 200, body);
    return true;
  }
}
