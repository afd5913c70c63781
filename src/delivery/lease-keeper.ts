import type { Delivery } from './domain.js';

/**
 * Keeps a lease while slow work runs under it: a look-up waiting for its share of the history budget, a
 * sweep pass, a call queued for its pacing slot, a refused layout sent again. The lease is renewed every
 * third of its length, so no replica takes over a record whose holder is alive and working (issue 35, D1:
 * a look-up longer than the lease let two replicas take the record from each other for good). A frozen or
 * dead holder renews nothing and is taken over as before. A renewal refused (taken over, handed back)
 * marks the lease lost: whatever the work then decides is refused by the store's fencing.
 */
export async function keepingLease<T>(
  renew: () => Promise<Delivery | undefined>,
  leaseMs: number,
  work: () => Promise<T>,
): Promise<T> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const next = () => {
    timer = setTimeout(async () => {
      // A store that failed to answer is tried again on the next tick; only a refusal ends the renewals.
      const renewed = await renew().catch(() => null);
      if (renewed !== undefined && !stopped) next();
    }, leaseMs / 3);
    timer.unref();
  };
  next();
  try {
    return await work();
  } finally {
    stopped = true;
    clearTimeout(timer);
  }
}
