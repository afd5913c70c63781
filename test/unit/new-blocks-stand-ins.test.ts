import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { NewBlocksGate, NO_GATE, STAND_IN_PREFIX, withNewBlocks } from '../../src/slack/new-blocks.js';

const logger = createLogger({ level: 'silent', secrets: [] });
const table = { type: 'data_table' };
const list = { type: 'section', block_id: `${STAND_IN_PREFIX}top_pages` };
const blocks = [{ type: 'header' }, table, list, { type: 'context' }];

describe('stand-ins for the 2026 blocks', () => {
  it('sends the table without its stand-in list where the workspace takes new blocks', async () => {
    const gate = new NewBlocksGate(undefined, logger);
    expect(await gate.blocksFor(blocks)).toEqual([{ type: 'header' }, table, { type: 'context' }]);
    expect(await NO_GATE.blocksFor(blocks)).toEqual([{ type: 'header' }, table, { type: 'context' }]);
  });

  it('after invalid_blocks retries with the stand-in list in place of the table, and keeps to it', async () => {
    const gate = new NewBlocksGate(undefined, logger);
    const sent = await gate.blocksFor(blocks);
    const retry = await gate.retryWithout(sent, 'invalid_blocks', blocks);
    expect(retry).toEqual([{ type: 'header' }, list, { type: 'context' }]);
    expect(await NO_GATE.retryWithout(sent, 'invalid_blocks', blocks)).toEqual(retry);
    await gate.confirm();
    expect(await gate.blocksFor(blocks)).toEqual(retry);
  });

  it('keeps a stand-in where the message has no new block to stand in for', () => {
    expect(withNewBlocks([{ type: 'header' }, list])).toEqual([{ type: 'header' }, list]);
  });
});
