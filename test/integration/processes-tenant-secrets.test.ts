import { afterAll, describe, expect, it } from 'vitest';
import type { BotProcess } from '../support/bot-process.js';
import type { FakeDocs } from '../support/fake-docs.js';
import type { FakeSlack } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { bot, fakes, stopProcesses } from '../support/process-helpers.js';
import { tenantCommand } from '../support/tenant-actions.js';
import { ALPHA, BETA, installThrough, registerTenants } from '../support/tenant-bots.js';
import { connectThroughModal } from '../support/tenant-connect.js';

/**
 * Issue 36, finding 7, as a process: an OAuth-mode bot with two tenants whose bot tokens have no Slack shape
 * (random characters: only a scrubber that knows each tenant's values catches them); docs admin keys always
 * have their `svc_` shape (the config and the connect form require it). The platform and Slack echo every secret back in their errors; nothing the process
 * writes (stdout, stderr) nor anything it sends to Slack carries any of them.
 */
describe('OAuth mode: no tenant secret in the logs or in Slack', () => {
  let slack: FakeSlack;
  let docs: FakeDocs;
  let process_: BotProcess;
  afterAll(stopProcesses, 30_000);

  it('scrubs every tenant’s token and key, shaped or not, even when errors echo them', async () => {
    ({ slack, docs } = await fakes());
    registerTenants(slack, docs);
    slack.oauth.opaqueTokens = true;
    process_ = await bot({
      name: 'tenant-secrets',
      slack,
      docs,
      oauth: true,
      env: { LOG_LEVEL: 'debug' },
      startTimeoutMs: 40_000,
    });
    for (const t of [ALPHA, BETA]) {
      await installThrough(process_, slack, t);
      expect((await connectThroughModal(process_, slack, t)).status).toBe(200);
    }
    const secrets: string[] = [];
    for (const t of [ALPHA, BETA]) {
      const token = slack.oauth.liveToken(t.key);
      expect(token).toBeDefined();
      expect(token).not.toMatch(/^xox/);
      secrets.push(token!, t.apiKey);
    }
    const echoed = secrets.join(' ');
    // The platform refuses each job and echoes every secret; Slack refuses a card update the same way.
    docs.inject(
      { method: 'POST' },
      { kind: 'status', status: 401, body: JSON.stringify({ error: `invalid credentials: ${echoed}` }) },
      2,
    );
    slack.inject('chat.update', { kind: 'error', error: `invalid_auth ${echoed}` }, 2);
    for (const t of [ALPHA, BETA])
      expect(
        (await tenantCommand(process_, slack, t, `Secrets drill ${t.marker}: tidy the intro`)).status,
      ).toBe(200);
    await waitFor(() => process_.logs.filter((l) => l.msg === 'could not create agent job').length >= 2, {
      what: "both tenants' refused jobs in the log",
      timeoutMs: 15_000,
    });
    await process_.stop();

    const output = `${process_.stdout()}\n${process_.stderr()}`;
    expect(output).toContain('invalid credentials');
    const sent = slack.everythingSent();
    for (const secret of secrets) {
      expect(output, 'the process output').not.toContain(secret);
      expect(sent, 'what the bot sent to Slack').not.toContain(secret);
    }
  }, 90_000);
});
