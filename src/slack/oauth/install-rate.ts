import type { IncomingMessage } from 'node:http';
import type { WindowCounter } from '../../common/window-counter.js';

const WINDOW_MS = 60_000;
/** Half the deployment's minute for one address (one sender never takes it all), never fewer than 3. */
const perAddress = (perMinute: number) => Math.max(3, Math.ceil(perMinute / 2));
/** An address as it may be used in a key: an IP literal's characters, bounded. */
const ADDRESS_CHARS = /^[0-9A-Fa-f:.]{1,45}$/;

export type InstallAdmission = { admitted: true } | { admitted: false; retryAfterS: number };

/**
 * A rate limit on completing "Add to Slack": `perMinute` for the deployment, half of it per address. The
 * address is the last hop of X-Forwarded-For (added by the proxy in front, e.g. compose.yml's Caddy) or the
 * socket's; a client sending its own header can only spread its count over addresses, never past the
 * deployment's. When the store cannot count, installs are let through (an outage must not lock teams out).
 */
export class InstallRateLimit {
  constructor(
    private readonly counter: WindowCounter,
    private readonly perMinute: number,
    private readonly now: () => number,
  ) {}

  async admit(req: IncomingMessage): Promise<InstallAdmission> {
    const at = this.now();
    const window = Math.floor(at / WINDOW_MS);
    const retryAfterS = Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - at) / 1000));
    const address = addressOf(req);
    try {
      const [all, one] = await Promise.all([
        this.counter.increment(`installs:${window}`, 2 * WINDOW_MS),
        address ? this.counter.increment(`installs:${window}:${address}`, 2 * WINDOW_MS) : 0,
      ]);
      if (all > this.perMinute || one > perAddress(this.perMinute)) return { admitted: false, retryAfterS };
    } catch {
      // Counted nowhere: admitted (the state store's own errors are reported where it is watched).
    }
    return { admitted: true };
  }
}

function addressOf(req: IncomingMessage): string | undefined {
  const forwarded = req.headers['x-forwarded-for'];
  const header = Array.isArray(forwarded) ? forwarded.at(-1) : forwarded;
  // Only the last 64 characters are looked at: the header is the client's to make as long as it likes.
  const last = header?.slice(-64).split(',').at(-1)?.trim();
  const address = last || req.socket.remoteAddress;
  return address && ADDRESS_CHARS.test(address) ? address : undefined;
}
