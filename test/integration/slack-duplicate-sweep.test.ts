import { webApi } from '@slack/bolt';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { SlackGateway } from '../../src/slack/slack-gateway.js';
import { FakeSlack } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';

const logger = createLogger({ level: 'silent', secrets: [] });
let slack: FakeSlack | undefined;
afterEach(async () => {
  await slack?.close();
});

/**
 * Issue 11: a post times out but lands, the look-up that should find it fails, so the retry posts a second
 * copy whose ts is handed back (it becomes the job's card and thread). The sweep must keep that copy and
 * delete the stray one, not keep "the earliest".
 */
describe('duplicate sweep after a timed-out post', () => {
  it('keeps the copy whose ts was handed back and deletes the other', async () => {
    slack = await FakeSlack.start();
    const client = new webApi.WebClient('xoxb-test', {
      slackApiUrl: slack.apiUrl,
      timeout: 200,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
    });
    const gateway = new SlackGateway(client, { logger, settleMs: 500, retryBaseMs: 10 });
    // The first post lands after the client gave up on it; every look-up attempt fails.
    slack.inject('chat.postMessage', { kind: 'delay', ms: 350, thenSucceed: true });
    slack.inject('conversations.history', { kind: 'status', status: 503 }, 4);

    const ts = await gateway.post({
      channel: 'C0SWEEP',
      message: { text: 'Starting the agent…', blocks: [] },
      dedupeKey: 'card:C0SWEEP:1',
    });
    expect(slack.messages.filter((m) => m.channel === 'C0SWEEP')).toHaveLength(2);

    await waitFor(() => slack!.callsOf('chat.delete').length > 0 || undefined, {
      timeoutMs: 5_000,
      what: 'the duplicate sweep',
    });
    await waitFor(() => slack!.messages.filter((m) => m.channel === 'C0SWEEP').length === 1 || undefined, {
      timeoutMs: 5_000,
      what: 'one copy left',
    });
    expect(slack.message('C0SWEEP', ts)).toBeDefined();
    await gateway.close();
  });
});
