import { CoalescedRun } from '../../common/coalesced-run.js';
import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { DirectoryChange } from '../../state/adapters.js';
import type { TenantKey } from '../../tenants/tenant.js';
import { type AbsentTenants, OutageLog, PendingSync } from './tenant-residency.js';
import type { TenantRuntimesDeps } from './tenant-runtimes-deps.js';

/** The replica's tick: idle scopes evicted; held scopes re-read when not following the directory's changes. */
export const SYNC_INTERVAL_MS = 2_000;
/** Following the changes, every held scope is still re-read this often: a net for a bug, not for a loss. */
/**
 * The slow net under the stream of changes (which says `all` itself when its cap passed this replica): longer
 * than a scope's idle time, so a quiet resident scope is evicted before the net reads it again. Every minute it
 * cost a stamp read per resident scope per replica: 77 reads a second with 3,800 held (bench 14).
 */
export const FULL_SYNC_MS = 15 * 60_000;

export interface FollowerParts {
  deps: Pick<TenantRuntimesDeps, 'watch' | 'syncIntervalMs' | 'directory' | 'clock'>;
  log: Logger;
  absent: AbsentTenants;
  /** The tenants whose scopes are held here now. */
  held(): TenantKey[];
  /** A held tenant's stamp as the directory has it now (undefined: uninstalled): applied to its scope. */
  reconcile(tenant: TenantKey, stamp: string | undefined): Promise<void>;
  /** The rest of the replica's tick (evicting idle scopes). */
  tick(): void;
  stopped(): boolean;
}

/**
 * Keeps the scopes held here current with the directory of installs (issue 34, O(changes)): the directory's
 * stream of changes names the tenants each write changed, and only those held here are re-read. Every held
 * scope is re-read at start, when changes may have been missed (the stream's cap passed this replica, a
 * failed read), every FULL_SYNC_MS as a net, and on every tick while the stream cannot be followed. A
 * request still reads its tenant's stamp first: that read decides, this only keeps background work current.
 */
export class DirectoryFollower {
  private readonly pending: PendingSync;
  private readonly syncs: CoalescedRun;
  private readonly outage: OutageLog;
  private watching = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly p: FollowerParts) {
    this.pending = new PendingSync(() => p.deps.clock.now(), FULL_SYNC_MS);
    this.syncs = new CoalescedRun(
      () => this.syncOnce(),
      () => p.stopped(),
    );
    this.outage = new OutageLog(p.log, 'the directory of installs');
  }

  start(): void {
    // Not waited for: a Redis that accepts no reader yet never holds up the start (the reads cover it).
    this.p.deps
      .watch?.((change) => this.changed(change))
      .then(
        () => {
          this.watching = true;
        },
        (error: unknown) => {
          const what = 'could not follow the directory of installs; re-reading held tenants every 2 s only';
          this.p.log.warn({ error: describeError(error) }, what);
        },
      );
    // One timer per replica, whatever the number of tenants.
    this.timer = setInterval(() => {
      if (!this.watching || this.pending.fullDue()) void this.sync().catch(() => undefined);
      this.p.tick();
    }, this.p.deps.syncIntervalMs ?? SYNC_INTERVAL_MS);
    this.timer.unref();
  }

  /** Re-reads the stamps of every scope held here (O(resident), never the whole directory); applies changes. */
  sync(): Promise<void> {
    this.pending.add('all');
    return this.run();
  }

  /** Stops the tick and waits for a sync under way. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.syncs.current()?.catch(() => undefined);
  }

  /** The directory says these tenants changed (or any may have): their held scopes are re-read now. */
  private changed(change: DirectoryChange): void {
    this.p.absent.forget(change);
    this.pending.add(change);
    void this.run().catch(() => undefined);
  }

  private run(): Promise<void> {
    return this.syncs.run().then(
      () => this.outage.ok(),
      (error: unknown) => {
        this.outage.failed(error);
        throw error;
      },
    );
  }

  private async syncOnce(): Promise<void> {
    if (this.p.stopped()) return;
    const held = this.pending.take(this.p.held());
    const stamps: Array<string | undefined> = [];
    try {
      for (let i = 0; i < held.length; i += 500)
        stamps.push(...(await this.p.deps.directory.stampsOf(held.slice(i, i + 500))));
    } catch (error) {
      this.pending.add('all'); // the next tick reads them all again
      throw error;
    }
    for (const [i, tenant] of held.entries())
      if (!this.p.stopped()) await this.p.reconcile(tenant, stamps[i]);
  }
}
