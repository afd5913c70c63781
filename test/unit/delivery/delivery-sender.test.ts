import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/common/logger.js';
import type { Delivery } from '../../../src/delivery/domain.js';
import { DeliveryAttemptError } from '../../../src/delivery/ports.js';
import { SlackDeliverySender } from '../../../src/slack/delivery-sender.js';
import { SlackGateway, type WebClient } from '../../../src/slack/slack-gateway.js';

const logger = createLogger({ level: 'silent', secrets: [] });
let server: Server | undefined;
afterEach(() => server?.close());

function reactionsClient(calls: string[]) {
  const call = (method: string) => async (args: { name: string }) => {
    calls.push(`${method} ${args.name}`);
    return { ok: true };
  };
  return { reactions: { add: call('add'), remove: call('remove') } } as unknown as WebClient;
}

const delivery = (target: Delivery['target']): Delivery => ({
  key: 'k',
  target,
  payload: { text: 'answer' },
  priority: 'reply',
  state: 'in_flight',
  notBefore: 0,
  attempts: 1,
  revision: 0,
  createdAt: 0,
});

describe('SlackDeliverySender (issue 26, item 8: leases at least as long as the work)', () => {
  it('a reactions delivery renews its lease before every call and stops as soon as it is lost', async () => {
    const calls: string[] = [];
    const sender = new SlackDeliverySender(new SlackGateway(reactionsClient(calls), { logger }), 1_000);
    const target: Delivery['target'] = {
      kind: 'reactions',
      channel: 'C1',
      ts: '1.1',
      names: ['a', 'b'],
      managed: ['a', 'b', 'c'],
    };
    let renewals = 0;
    const renew = async () => {
      renewals += 1;
      return delivery(target);
    };
    const result = await sender.send('k', 'reply', target, renew);
    expect(result.sent).toBe(true);
    expect(calls).toEqual(['remove c', 'add a', 'add b']);
    expect(renewals).toBe(3);

    calls.length = 0;
    let left = 1;
    const lost = async () => (left-- > 0 ? delivery(target) : undefined);
    expect((await sender.send('k', 'reply', target, lost)).sent).toBe(false);
    expect(calls).toEqual(['remove c']);
  });

  it('a response_url answer honours the configured timeout (the lease is sized to it)', async () => {
    server = createServer(() => undefined);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/response/1`;
    const sender = new SlackDeliverySender(new SlackGateway(reactionsClient([]), { logger }), 300);
    const target = { kind: 'respond', url } as const;
    // The server never answers: only the configured time-out ends the attempt (else the test would hang).
    const error = await sender.send('k', 'reply', target, async () => delivery(target)).catch((e) => e);
    expect(error).toBeInstanceOf(DeliveryAttemptError);
    expect((error as DeliveryAttemptError).failure.kind).toBe('unknown');
  });
});
