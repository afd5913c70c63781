import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { RedisDueIndex } from '../../state/adapters.js';
import type { Scope } from '../docs-agent.js';
import type { WakeResult } from './tenant-runtimes.js';

/** How often a replica reads the due index. */
export const DUE_TICK_MS = 1_000;
/** Tenants taken per read; more wait for the next tick (the index keeps them due). */
const CLAIM_LIMIT = 50;
/** A claimed tenant is due again after this if its replica dies before settling it. */
const CLAIM_MS = 30_000;
/** A tenant on hold is looked at again this much later (its work waits, nothing is lost). */
const HELD_RETRY_MS = 60_000;
/** Tenants looked at in parallel by one replica. */
const PARALLEL = 8;

/** This replica's holds, as the due index's claim carries them (`plane-affinity.ts`). */
type Holds = NonNullable<Parameters<RedisDueIndex['claim']>[2]>;

export interface DueClaimPort {
  claim(limit: number, claimMs: number, holds?: Holds): Promise<Array<{ tenant: string; claimedAt: number }>>;
  settle(claim: { tenant: string; claimedAt: number }, nextAt: number | undefined): Promise<boolean>;
}

/**
 * One per replica (issue 34): finds the tenants with work nobody may hold (owed deliveries, handed-over
 * starts, and since issue 43 watched jobs and followed PRs: a poll or a read nobody scheduled, a stranded
 * wake-up) from the deployment's due index (O(due), never O(tenants)), wakes each one's scope (built on
 * demand) and runs that work there, then writes back when it falls due next (a tenant with a watched job or a
 * followed PR every few seconds, one with nothing in flight leaves the index). It is the only periodic
 * reconcile in OAuth mode on Redis: a resident tenant with nothing in flight costs no run. A replica dying
 * mid-way leaves its claims due again after CLAIM_MS.
 */
export class ReconcilePlane {
  private running: Promise<void> | undefined;
  private loggedAt = 0;
  private readonly holds: Holds | undefined;
  private holdsOwed = false;

  constructor(
    private readonly deps: {
      index: DueClaimPort;
      wake(tenant: string): Promise<WakeResult>;
      agentOf(tenant: string): Pick<Scope, 'reconcileDue'> | undefined;
      now(): number;
      logger: Logger;
      /** This replica's holds: a tenant another replica holds is left to it a while (issue 43 "no thrash"). */
      holds?: (changed: () => void) => Holds;
    },
  ) {
    this.holds = deps.holds?.(() => this.writeHoldsSoon());
  }

  /** One read of the index and the work it names; a tick during a run is skipped. */
  tick(): Promise<void> {
    this.running ??= this.runOnce()
      .catch((error: unknown) => {
        if (this.deps.now() - this.loggedAt < 60_000) return;
        this.loggedAt = this.deps.now();
        this.deps.logger.warn({ error: describeError(error) }, 'could not read the due index; retrying');
      })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  /** Waits for a run under way (shutdown), and lets go of this replica's holds (others look at once). */
  async stop(): Promise<void> {
    await this.running;
    if (this.holds?.releaseAll()) await this.deps.index.claim(0, CLAIM_MS, this.holds).catch(() => undefined);
  }

  /**
   * A scope newly built here: its hold is written now by a claim of none (one per burst), not at the next
   * run's claim, which waits while a run is under way (and the other replica would take the tenant first).
   */
  private writeHoldsSoon(): void {
    if (this.holdsOwed) return;
    this.holdsOwed = true;
    setImmediate(() => {
      this.holdsOwed = false;
      void this.deps.index.claim(0, CLAIM_MS, this.holds).catch(() => undefined);
    });
  }

  private async runOnce(): Promise<void> {
    const claims = await this.deps.index.claim(CLAIM_LIMIT, CLAIM_MS, this.holds);
    for (let i = 0; i < claims.length; i += PARALLEL)
      await Promise.all(claims.slice(i, i + PARALLEL).map((claim) => this.look(claim)));
  }

  private async look(claim: { tenant: string; claimedAt: number }): Promise<void> {
    const { tenant } = claim;
    try {
      const woken = await this.deps.wake(tenant);
      if (woken === 'gone') return void (await this.deps.index.settle(claim, undefined));
      if (woken === 'held')
        return void (await this.deps.index.settle(claim, this.deps.now() + HELD_RETRY_MS));
      const agent = this.deps.agentOf(tenant);
      // Built a moment ago and evicted or uninstalled since: the claim lapses and it is looked at again.
      if (!agent?.reconcileDue) return;
      await this.deps.index.settle(claim, await agent.reconcileDue());
    } catch (error) {
      // Left claimed: due again when the claim lapses.
      this.deps.logger.warn(
        { tenant, error: describeError(error) },
        'owed work of a tenant failed; retrying',
      );
    }
  }
}
