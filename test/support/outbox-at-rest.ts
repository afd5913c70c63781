import { createLogger } from '../../src/common/logger.js';
import { DELIVERY_PRIORITIES } from '../../src/delivery/domain.js';
import { closeRedis, connectRedis } from '../../src/state/redis/redis-client.js';
import type { FakeSlack } from './fake-slack.js';
import { onCleanup } from './process-helpers.js';

/**
 * Whether nothing can change what Slack shows any more: no delivery of the bots' outbox is due again (every
 * reply, card state, look-up, sweep and re-check is settled: the due sets of the namespace are empty), every
 * late write the fake holds has landed and every delayed answer has been given. The drills wait for this
 * instead of sleeping "past every check window", then look at the result once.
 */
export async function outboxAtRest(slack: FakeSlack, redisUrl: string): Promise<() => Promise<boolean>> {
  const client = await connectRedis(redisUrl, createLogger({ level: 'silent', secrets: [] }), {
    failFast: false,
  });
  onCleanup(() => closeRedis(client));
  return async () => {
    const now = Date.now();
    if (slack.held.hit.some((hit) => hit.fault.kind === 'late' && now < hit.at + hit.fault.ms)) return false;
    const delays = slack.randomInjected.filter(({ fault }) => fault.kind === 'delay').length;
    if (slack.delayedAnswers.length < delays) return false;
    for (const priority of DELIVERY_PRIORITIES)
      if ((await client.zCard(`docs-agent:deliveries:due:${priority}`)) > 0) return false;
    return true;
  };
}
