import { describe, expect, it } from 'vitest';
import { HistoryReads } from '../../src/slack/history-reads.js';
import type { HistoryPage, PageArgs, ReadPage } from '../../src/slack/message-lookup.js';

const EVENT = 'docs_agent_message';

/** A bot post as conversations.replies/history answer it, carrying its key in metadata. */
const post = (ts: string, key: string) => ({ ts, metadata: { event_type: EVENT, event_payload: { key } } });

/**
 * Reads that wait for their slot until the test opens it (`grant`), as a distributed app's once-a-minute
 * slot makes them wait; each read's arguments are taken when its slot comes, as the gateway does.
 */
function slottedReads(pages: (args: PageArgs) => HistoryPage) {
  const waiting: Array<() => void> = [];
  const made: PageArgs[] = [];
  const priorities: string[] = [];
  const read: ReadPage = async (_method, _channel, args, priority = 'reply') => {
    priorities.push(priority);
    await new Promise<void>((resolve) => waiting.push(resolve));
    const page = await args();
    if (!page) return undefined;
    made.push(page);
    return pages(page);
  };
  const settle = () => new Promise((resolve) => setTimeout(resolve, 5));
  const grant = async () => {
    await settle();
    waiting.shift()?.();
    await settle();
  };
  return { read, made, grant, waiting, settle, priorities };
}

describe('HistoryReads: look-ups and sweeps share scarce history reads', () => {
  it('one read of a thread answers every record waiting in it, in one window covering all of them', async () => {
    let now = 100_000_000;
    const slot = slottedReads(() => ({
      messages: [post('100000.000001', 'a'), post('100000.000002', 'b'), post('100000.000003', 'a')],
    }));
    const reads = new HistoryReads(slot.read, EVENT, { now: () => now });
    const thread = { channel: 'C1', threadTs: '99999.000001' };
    const a = reads.copies({ ...thread, key: 'a', sinceMs: 100_000_000 }, 60_000);
    const b = reads.copies({ ...thread, key: 'b', sinceMs: 90_000_000 }, 60_000);
    const c = reads.copies({ ...thread, key: 'c', sinceMs: 95_000_000 }, 60_000);
    now += 5_000;
    await slot.grant();

    expect(await a).toEqual(['100000.000001', '100000.000003']);
    expect(await b).toEqual(['100000.000002']);
    expect(await c).toEqual([]);
    expect(slot.made).toHaveLength(1);
    // From the earliest record (less the clock-skew margin) to now (plus it), both ends inclusive.
    expect(slot.made[0]).toMatchObject({
      channel: 'C1',
      ts: thread.threadTs,
      oldest: '89940.000000',
      latest: '100065.000000',
      inclusive: true,
    });
  });

  it('a record asked for after a read started waits for the next read (a copy landing meanwhile is seen)', async () => {
    let now = 1_000_000;
    let stored = [post('1.000001', 'x')];
    const slot = slottedReads(() => ({ messages: stored }));
    const reads = new HistoryReads(slot.read, EVENT, { now: () => now });
    const channel = { channel: 'C1', threadTs: null };
    const first = reads.copies({ ...channel, key: 'x', sinceMs: 0 }, 60_000);
    await slot.grant();
    expect(await first).toEqual(['1.000001']);

    now += 1;
    stored = [post('1.000001', 'x'), post('1.000002', 'y')];
    const late = reads.copies({ ...channel, key: 'y', sinceMs: 0 }, 60_000);
    await slot.settle();
    // Not answered by the finished read, which started before it was asked.
    expect(slot.waiting).toHaveLength(1);
    await slot.grant();
    expect(await late).toEqual(['1.000002']);
    expect(slot.made).toHaveLength(2);
  });

  it('a look-up whose read has not come says `lookup_pending`; the retry is answered by that read, no second read', async () => {
    const now = 1_000_000;
    const slot = slottedReads(() => ({ messages: [post('2.000001', 'k')] }));
    const reads = new HistoryReads(slot.read, EVENT, { now: () => now });
    const query = { channel: 'C1', threadTs: '1.000001', key: 'k', sinceMs: 0 };
    await expect(reads.copies(query, 5)).rejects.toMatchObject({ code: 'lookup_pending' });
    await slot.grant();
    expect(await reads.copies(query, 5)).toEqual(['2.000001']);
    expect(slot.made).toHaveLength(1);
  });

  it('pages through the window with the cursor, 15 messages a page', async () => {
    const slot = slottedReads((args) =>
      args.cursor
        ? { messages: [post('3.000002', 'k')] }
        : { messages: [post('3.000001', 'k')], response_metadata: { next_cursor: 'next' } },
    );
    const reads = new HistoryReads(slot.read, EVENT, { now: () => 1_000_000, pageSize: 15 });
    const found = reads.copies({ channel: 'C1', threadTs: null, key: 'k', sinceMs: 0 }, 60_000);
    await slot.grant();
    await slot.grant();
    expect(await found).toEqual(['3.000001', '3.000002']);
    expect(slot.made.map((page) => [page.limit, page.cursor])).toEqual([
      [15, undefined],
      [15, 'next'],
    ]);
    // Both pages in the one window.
    expect(slot.made[1]?.oldest).toBe(slot.made[0]?.oldest);
    expect(slot.made[1]?.latest).toBe(slot.made[0]?.latest);
  });

  it('a sweep rides on a waiting look-up read; its own read queues as a refresh and is skipped once a look-up read covers it', async () => {
    let now = 1_000_000;
    const slot = slottedReads(() => ({ messages: [post('7.000001', 'posted'), post('7.000002', 'posted')] }));
    const reads = new HistoryReads(slot.read, EVENT, { now: () => now });
    const thread = { channel: 'C1', threadTs: '7.000000', sinceMs: 0 };
    const lookup = reads.copies({ ...thread, key: 'unsure' }, 60_000, 'lookup');
    const sweep = reads.copies({ ...thread, key: 'posted' }, 60_000, 'sweep');
    await slot.grant();
    expect(await lookup).toEqual([]);
    expect(await sweep).toEqual(['7.000001', '7.000002']);
    expect(slot.made).toHaveLength(1);

    // A sweep alone queues behind look-ups; a look-up asked after it gets a read of its own, first.
    now += 1;
    const laterSweep = reads.copies({ ...thread, key: 'posted' }, 60_000, 'sweep');
    await slot.settle();
    now += 1;
    const laterLookup = reads.copies({ ...thread, key: 'unsure' }, 60_000, 'lookup');
    await slot.settle();
    expect(slot.priorities.slice(-2)).toEqual(['refresh', 'reply']);
    // The pacer lets the look-up's read go first (it would); the sweep's read then has nothing to add.
    const [sweepSlot, lookupSlot] = slot.waiting.splice(0, 2);
    lookupSlot!();
    expect(await laterLookup).toEqual([]);
    sweepSlot!();
    expect(await laterSweep).toEqual(['7.000001', '7.000002']);
    expect(slot.made).toHaveLength(2);
  });
});
