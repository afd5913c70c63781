import type { DoorbellLeases, DoorbellState } from '../../jobs/doorbell/ports.js';

/** Repositories remembered at most (the least recently saved goes first). */
const MAX_REPOSITORIES = 10_000;

/**
 * `DoorbellLeases` in this process (memory mode has one process): the same lease, fencing token and
 * checked save as the Redis version, so the doorbell behaves the same in both modes.
 */
export class MemoryDoorbellLeases implements DoorbellLeases {
  private readonly leases = new Map<string, { holder: string; token: number; expiresAt: number }>();
  private readonly fences = new Map<string, number>();
  private readonly states = new Map<string, DoorbellState>();

  constructor(private readonly now: () => number = Date.now) {}

  async acquire(repoKey: string, holder: string, ttlMs: number): Promise<number | null> {
    const now = this.now();
    const lease = this.leases.get(repoKey);
    if (lease && lease.expiresAt > now && lease.holder !== holder) return null;
    const token = lease && lease.expiresAt > now ? lease.token : (this.fences.get(repoKey) ?? 0) + 1;
    this.fences.set(repoKey, token);
    this.leases.set(repoKey, { holder, token, expiresAt: now + ttlMs });
    return token;
  }

  async state(repoKey: string): Promise<DoorbellState | undefined> {
    const state = this.states.get(repoKey);
    return state ? structuredClone(state) : undefined;
  }

  async save(repoKey: string, token: number, state: DoorbellState): Promise<boolean> {
    const lease = this.leases.get(repoKey);
    if (!lease || lease.token !== token || lease.expiresAt <= this.now()) return false;
    this.states.delete(repoKey);
    this.states.set(repoKey, structuredClone(state));
    if (this.states.size > MAX_REPOSITORIES) this.states.delete(this.states.keys().next().value as string);
    return true;
  }

  async release(repoKey: string, token: number): Promise<void> {
    if (this.leases.get(repoKey)?.token === token) this.leases.delete(repoKey);
  }
}
