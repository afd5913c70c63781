import { type ParkedJobs, parkedFromMember, parkedMember } from '../parked-jobs.js';

/** In one process (tests, and the contract's reference): one set per tenant, taken in one synchronous step. */
export class MemoryParkedJobs implements ParkedJobs {
  private readonly byTenant = new Map<string, Set<string>>();

  async park(tenant: string, kind: string, id: string): Promise<void> {
    const set = this.byTenant.get(tenant) ?? new Set<string>();
    this.byTenant.set(tenant, set);
    set.add(parkedMember(kind, id));
  }

  async has(tenant: string): Promise<boolean> {
    return (this.byTenant.get(tenant)?.size ?? 0) > 0;
  }

  async take(tenant: string): Promise<Array<{ kind: string; id: string }>> {
    const set = this.byTenant.get(tenant);
    this.byTenant.delete(tenant);
    return [...(set ?? [])].map(parkedFromMember);
  }
}
