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
