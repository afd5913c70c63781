import { describe, expect, it } from 'vitest';
import { errorCode } from '../../src/common/errors.js';
import { createLogger } from '../../src/common/logger.js';
import type { VersionedRecords } from '../../src/common/versioned-records.js';
import type { Outbox } from '../../src/delivery/ports.js';
import type { MessageBlock } from '../../src/slack/messages/types.js';
import { SHARED_CHANGE_ATTEMPTS, SharedMessages } from '../../src/slack/posted-message-edits.js';
import { createMemoryVersionedRecords } from '../../src/state/versioned-records.js';

/* A shared message's change is written over the state it read; on a conflict it is redone from the fresh one. */

const logger = createLogger({ level: 'silent', secrets: [] });
const CH = 'C0ALERTS';
const TS = '1700000000.000100';
const seen = {
  text: 'Docs-health alert',
  blocks: [
    { type: 'section', text: { type: 'mrkdwn', text: 'A gap' } },
    {
      type: 'actions',
      elements: [
        { type: 'button', action_id: 'fix', text: { type: 'plain_text', text: 'Fix' } },
        { type: 'overflow', action_id: 'menu', options: [] },
      ],
    },
  ],
};

function shared(models: VersionedRecords, now = () => 1_000) {
  const owed: Array<Parameters<Outbox['owe']>[0]> = [];
  const outbox: Outbox = {
    owe: async (d) => void owed.push(d),
    deliver: async () => ({ settled: true }) as never,
    recorded: async () => false,
  };
  const store = { put: async () => undefined, get: async () => undefined };
  return { messages: new SharedMessages({ outbox, store, models, now }), owed };
}

const line = (id: string) => (blocks: readonly MessageBlock[]) => [
  ...blocks,
  { type: 'context' as const, block_id: id, elements: [{ type: 'mrkdwn' as const, text: id }] },
];

describe('shared message changes and versions', () => {
  it('a change that lost the race is redone from the fresh state: both lines kept, seq rising', async () => {
    const records = createMemoryVersionedRecords(logger);
    // Between this change's read and its write, someone else's change lands.
    const first = shared(records);
    let raced = false;
    const racing: VersionedRecords = {
      read: (key) => records.read(key),
      async write(key, json, expected, ttlMs) {
        if (!raced) {
          raced = true;
          await first.messages.change(CH, TS, seen, line('first'));
        }
        return records.write(key, json, expected, ttlMs);
      },
    };
    const second = shared(racing);
    expect(await second.messages.change(CH, TS, seen, line('second'))).toBe(true);
    const kept = JSON.parse((await records.read(`shared-msg:${CH}:${TS}`))!.json);
    expect(JSON.stringify(kept.blocks)).toContain('"first"');
    expect(JSON.stringify(kept.blocks)).toContain('"second"');
    // Its update comes after the first's (the outbox keeps the highest): Slack ends on both lines.
    expect(second.owed).toHaveLength(1);
    expect(second.owed[0]!.seq).toBe(kept.seq);
    expect(second.owed[0]!.seq).toBeGreaterThan(first.owed[0]!.seq!);
  });

  it(`gives up after ${SHARED_CHANGE_ATTEMPTS} conflicts with a coded error, owing nothing`, async () => {
    let writes = 0;
    const always: VersionedRecords = {
      read: async () => undefined,
      write: async () => {
        writes += 1;
        return false;
      },
    };
    const { messages, owed } = shared(always);
    const failed = await messages.change(CH, TS, seen, line('x')).catch((e: unknown) => e);
    expect(errorCode(failed)).toBe('shared_message_busy');
    expect(writes).toBe(SHARED_CHANGE_ATTEMPTS);
    expect(owed).toHaveLength(0);
  });
});
