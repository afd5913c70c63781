/**
 * Queued jobs of tenants on hold (issue 43): parked under their tenant until the hold lifts, instead of being
 * moved back every minute. `take` hands a tenant's parked jobs to exactly one caller (two replicas lifting the
 * same hold: one gets them, the other none), so each is released once.
 */
export interface ParkedJobs {
  park(tenant: string, kind: string, id: string): Promise<void>;
  /** Whether the tenant has any job parked (cheap: one look). */
  has(tenant: string): Promise<boolean>;
  /** The tenant's parked jobs, removed in the same step. */
  take(tenant: string): Promise<Array<{ kind: string; id: string }>>;
}

/** One parked job as stored: its kind and id (a kind never holds a newline). */
export const parkedMember = (kind: string, id: string) => `${kind}\n${id}`;

export function parkedFromMember(member: string): { kind: string; id: string } {
  const at = member.indexOf('\n');
  return { kind: member.slice(0, at), id: member.slice(at + 1) };
}
