import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { sendToDocsAgentShortcut } from '../../src/slack/listeners/actions/send-to-docs-agent.js';
import { SlackBudgetSpentError } from '../../src/slack/slack-pacing.js';
import { BudgetedThreadContext } from '../../src/slack/thread-context.js';
import { access, CHANNEL, USER } from './listeners/fakes.js';

const silent = createLogger({ level: 'silent', secrets: [] });
const THREAD = '100.000001';

/** A gateway whose history budget has one read this minute. */
function gatewayWithOneRead() {
  let spent = false;
  const readPage = vi.fn(async (_method: string, _args: unknown, { now }: { now: boolean }) => {
    if (now && spent) throw new SlackBudgetSpentError('slack_budget_spent', 'no read free');
    spent = true;
    return {
      messages: [
        { ts: THREAD, user: 'U0BOB', text: 'Release thread' },
        { ts: '100.000002', user: 'U0BOB', text: 'The export flag changed' },
      ],
      has_more: false,
    };
  });
  return { readPage };
}

function openForm(threads: BudgetedThreadContext, ts: string, text: string) {
  const open = vi.fn(async (_args: { view: unknown }) => ({}));
  const respond = vi.fn(async () => ({}));
  const run = sendToDocsAgentShortcut({ access: access(), logger: silent, threads })({
    ack: async () => {},
    respond,
    client: { conversations: { replies: vi.fn() }, views: { open } },
    shortcut: {
      trigger_id: 't',
      user: { id: USER },
      channel: { id: CHANNEL },
      message: { ts, thread_ts: THREAD, text },
    },
  });
  return { run, open, respond };
}

describe('the job form within a distributed app’s history budget', () => {
  it('the first form takes the minute’s read; the second opens at once, prefilled, saying the thread could not be read; the job reuses the read', async () => {
    const gateway = gatewayWithOneRead();
    const threads = new BudgetedThreadContext(gateway, silent);
    const first = openForm(threads, '100.000003', 'Document the export flag');
    await first.run;
    const second = openForm(threads, '100.000004', 'Also the limits');
    await second.run;

    const firstView = JSON.stringify(first.open.mock.calls[0]?.[0]);
    expect(firstView).toContain('Document the export flag');
    expect(firstView).toContain("Include the thread's earlier messages");
    const secondView = JSON.stringify(second.open.mock.calls[0]?.[0]);
    expect(secondView).toContain('Also the limits');
    expect(secondView).toContain("couldn't read this thread's earlier messages just now");
    expect(second.respond).not.toHaveBeenCalled();

    // Submitting the first form: the job's context is what the form read, without reading again.
    const context = await threads.inTurn(CHANNEL, THREAD, '100.000003');
    expect(context.map((m) => m.text)).toEqual(['Release thread', 'The export flag changed']);
    expect(gateway.readPage).toHaveBeenCalledTimes(2);
    expect(gateway.readPage.mock.calls.map((call) => call[2])).toEqual([{ now: true }, { now: true }]);
  });
});

describe('readEarlierMessages: people of this workspace only', () => {
  it('leaves out bots, apps, bot_message posts and Slack Connect outsiders', async () => {
    const { readEarlierMessages } = await import('../../src/slack/listeners/actions/thread-reads.js');
    const client = {
      conversations: {
        replies: async () => ({
          messages: [
            { ts: THREAD, user: 'U0BOB', text: 'Release thread', team: 'T0HOME' },
            { ts: '100.000002', user: 'U0HOOK', bot_id: 'B0HOOK', text: 'bot: delete it' },
            { ts: '100.000003', user: 'U0FLOW', app_id: 'A0FLOW', text: 'app: publish it' },
            { ts: '100.000004', subtype: 'bot_message', text: 'legacy: drop it' },
            { ts: '100.000005', user: 'U0OUT', user_team: 'T0OTHER', team: 'T0OTHER', text: 'outsider: ad' },
            { ts: '100.000006', user: 'U0CAROL', text: 'The export flag changed' },
          ],
        }),
      },
    };
    const read = await readEarlierMessages(client, CHANNEL, THREAD, '100.000009', 'T0HOME');
    expect(read.messages).toEqual([
      { author: '@U0BOB', text: 'Release thread' },
      { author: '@U0CAROL', text: 'The export flag changed' },
    ]);
  });
});
