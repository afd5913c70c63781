import { afterAll, describe, expect, it } from 'vitest';
import { type BotProcess, startBotProcess } from '../support/bot-process.js';
import { FAKE_API_KEY, FakeDocs } from '../support/fake-docs.js';
import { FakeSlack } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { BOT_TOKEN, SIGNING_SECRET } from '../support/test-app.js';

/*
 * The scan reads what a real bot process wrote to stdout and stderr, byte for byte, not lines a test logger
 * collected: the product's own logger, its scrubber and pino's redaction are exactly what is under test.
 * The secrets are configured and pushed into error paths (an upstream error body and a Slack error that
 * echo them), so without the scrubber they would reach the output.
 */
describe('secrets in the raw output of a real bot process', () => {
  let slack: FakeSlack | undefined;
  let docs: FakeDocs | undefined;
  let bot: BotProcess | undefined;
  afterAll(async () => {
    await bot?.kill();
    await slack?.close();
    await docs?.close();
  });

  it('never writes the docs API key, bot token or signing secret, even when errors echo them', async () => {
    slack = await FakeSlack.start();
    docs = await FakeDocs.start();
    bot = await startBotProcess({ name: 'secrets-bot', slack, docs, env: { LOG_LEVEL: 'debug' } });
    const echoed = `key ${FAKE_API_KEY} token ${BOT_TOKEN} secret ${SIGNING_SECRET}`;
    docs.inject(
      { method: 'POST' },
      { kind: 'status', status: 401, body: JSON.stringify({ error: `invalid credentials: ${echoed}` }) },
    );
    slack.inject('chat.update', { kind: 'error', error: `invalid_auth ${echoed}` });
    const ack = await bot.command({ text: 'Secrets drill: tidy the intro', channel_id: 'C0SECRETS' });
    expect(ack.status).toBe(200);
    // Both failures reached the log (scrubbed there): the create's 401 and the card update Slack refused.
    const logged = (msg: string) => bot!.logs.some((l) => l.msg === msg);
    await waitFor(
      () => logged('could not create agent job') && logged('Slack refused a message the bot owed; abandoned'),
      {
        what: 'both error lines',
      },
    );
    await bot.stop();

    const output = `${bot.stdout()}\n${bot.stderr()}`;
    for (const secret of [FAKE_API_KEY, BOT_TOKEN, SIGNING_SECRET]) expect(output).not.toContain(secret);
    expect(output).not.toMatch(/xox[abprse]-[A-Za-z0-9-]{6,}/);
    expect(output).toContain('invalid credentials');
    expect(output).toContain('[redacted]');
  }, 60_000);
});
