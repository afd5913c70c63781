import { createLogger } from '../../src/common/logger.js';
import { Deliveries } from '../../src/delivery/deliveries.js';
import type { Delivery } from '../../src/delivery/domain.js';
import type { DeliverySender } from '../../src/delivery/ports.js';
import { MemoryDeliveryStore } from '../../src/state/memory/memory-delivery-store.js';

/**
 * A real outbox (memory store) whose sender records what it delivers instead of calling Slack: for unit
 * tests of the parts that owe messages. `settle()` resolves once the background attempts have finished.
 */
export function recordingOutbox() {
  const sent: Delivery[] = [];
  const sender: DeliverySender = {
    async send(_key, _priority, _target, lease) {
      const delivery = await lease();
      if (!delivery) return { sent: false as const };
      sent.push(delivery);
      return { sent: true as const, delivery, ts: `${sent.length}.0` };
    },
    lookup: async () => undefined,
    removeDuplicates: async () => 0,
  };
  const store = new MemoryDeliveryStore();
  const logger = createLogger({ level: 'silent', secrets: [] });
  const outbox = new Deliveries({ store, sender, logger });
  // Waits for the attempts under way, not for a fixed time.
  const settle = () => outbox.idle();
  return { outbox, store, sent, settle };
}
