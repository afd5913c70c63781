import { type ParkedJobs, parkedFromMember, parkedMember } from '../parked-jobs.js';
import type { RedisClient } from './redis-client.js';

/**
 * Parked jobs in Redis: one set per tenant in its own key space (`<prefix>:t:{<tenant>}:parked-jobs`, the
 * tenant's hash tag, so one slot on a cluster); `take` reads and deletes it in one MULTI, so replicas lifting
 * the same hold at once release each job once.
 */
export class RedisParkedJobs implements ParkedJobs {
  constructor(
    private readonly client: RedisClient,
    private readonly prefix = 'docs-agent',
  ) {}

  private key(tenant: string): string {
    return `${this.prefix}:t:{${tenant}}:parked-jobs`;
  }

  async park(tenant: string, kind: string, id: string): Promise<void> {
    await this.client.sAdd(this.key(tenant), parkedMember(kind, id));
  }

  async has(tenant: string): Promise<boolean> {
    return (await this.client.exists(this.key(tenant))) > 0;
  }

  async take(tenant: string): Promise<Array<{ kind: string; id: string }>> {
    const key = this.key(tenant);
    const [members] = (await this.client.multi().sMembers(key).del(key).exec()) as unknown as [string[]];
    return (members ?? []).map(parkedFromMember);
  }
}
