import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { clientAddress, ProxyTrust, type TrustedProxy } from '../../common/client-address.js';
import type { WindowCounter } from '../../common/window-counter.js';

const WINDOW_MS = 60_000;
/** Half the deployment's minute for one address (one sender never takes it all), never fewer than 3. */
const perAddress = (perMinute: number) => Math.max(3, Math.ceil(perMinute / 2));
/**
 * Failed callbacks (a junk or reused code, Cancel, an expired link) one address may send a minute before
 * its callbacks are asked to wait: generous, since a school or an office shares one address, and counted
 * apart from installs, so junk never spends the install budget and never holds back another address.
 */
const failedPerAddress = (perMinute: number) => Math.max(120, 2 * perMinute);

export type InstallAdmission = { admitted: true } | { admitted: false; retryAfterS: number; retryAt: number };

/**
 * A rate limit on completing "Add to Slack". Only successful code exchanges (`oauth.v2.access` said ok)
 * count: `perMinute` for the deployment, half of it per address. Failed callbacks count apart, per address
 * only (`failedPerAddress`). A callback is admitted before its code is exchanged when neither its address's
 * nor the deployment's installs, nor its address's failures, are used up this minute; concurrent admissions
 * may pass the bound by the few in flight. The address is the connection's, or with TRUST_PROXY the right-most
 * X-Forwarded-For address that is not a trusted proxy (`client-address.ts`). When the store cannot count,
 * installs are let through (an outage must not lock teams out).
 */
export class InstallRateLimit {
  private readonly trust: ProxyTrust;

  constructor(
    private readonly counter: WindowCounter,
    private readonly perMinute: number,
    private readonly now: () => number,
    trustProxy: readonly TrustedProxy[] = [],
  ) {
    this.trust = new ProxyTrust(trustProxy);
  }

  /** Whether the callback of `req` may exchange its code now (nothing is counted here). */
  async admit(req: IncomingMessage): Promise<InstallAdmission> {
    const at = this.now();
    const window = Math.floor(at / WINDOW_MS);
    const address = this.addressOf(req);
    try {
      const [all, one, failed] = await Promise.all([
        this.counter.count(`installs:${window}`),
        this.counter.count(`installs:${window}:${address}`),
        this.counter.count(`install-failures:${window}:${address}`),
      ]);
      if (
        all >= this.perMinute ||
        one >= perAddress(this.perMinute) ||
        failed >= failedPerAddress(this.perMinute)
      ) {
        const retryAt = (window + 1) * WINDOW_MS;
        return { admitted: false, retryAt, retryAfterS: Math.max(1, Math.ceil((retryAt - at) / 1000)) };
      }
    } catch {
      // Counted nowhere: admitted (the state store's own errors are reported where it is watched).
    }
    return { admitted: true };
  }

  /** The code of `req` was exchanged (oauth.v2.access said ok): one install for its address and the deployment. */
  async succeeded(req: IncomingMessage): Promise<void> {
    const window = Math.floor(this.now() / WINDOW_MS);
    const address = this.addressOf(req);
    await Promise.all([
      this.counter.increment(`installs:${window}`, 2 * WINDOW_MS),
      this.counter.increment(`installs:${window}:${address}`, 2 * WINDOW_MS),
    ]).catch(() => undefined);
  }

  /** The callback of `req` failed (its state, its code, Slack): one failure for its address only. */
  async failed(req: IncomingMessage): Promise<void> {
    const window = Math.floor(this.now() / WINDOW_MS);
    await this.counter
      .increment(`install-failures:${window}:${this.addressOf(req)}`, 2 * WINDOW_MS)
      .catch(() => undefined);
  }

  /**
   * One link's state is used once: true the first time it is seen (within its ten minutes), false after.
   * A store that cannot say lets it through, as the limit does.
   */
  async firstUse(state: string, ttlMs: number): Promise<boolean> {
    const key = `install-state:${createHash('sha256').update(state).digest('base64url').slice(0, 32)}`;
    try {
      return (await this.counter.increment(key, ttlMs)) === 1;
    } catch {
      return true;
    }
  }

  private addressOf(req: IncomingMessage): string {
    return clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], this.trust);
  }
}
