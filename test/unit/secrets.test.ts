import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, secretsOf } from '../../src/common/config.js';
import { createLogger } from '../../src/common/logger.js';
import { type BotProcess, startBotProcess } from '../support/bot-process.js';
import { FAKE_API_KEY, FakeDocs } from '../support/fake-docs.js';
import { FakeSlack } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { BOT_TOKEN, SIGNING_SECRET } from '../support/test-app.js';

const BASE = {
  SLACK_BOT_TOKEN: 'xoxb-1111111111-2222222222222-abcdefghijkl',
  SLACK_SIGNING_SECRET: 'signing-secret-0123456789abcdef',
  DOCS_API_KEY: 'svc_0123456789abcdefghij',
  DOCS_PROJECT_ID: 'proj_1',
};

describe('secretsOf', () => {
  it('lists the tokens and keys of the config', () => {
    const secrets = secretsOf(loadConfig({ ...BASE, SLACK_APP_TOKEN: 'xapp-1-A0-123-abcdef0123456789' }));
    expect(secrets).toEqual(
      expect.arrayContaining([
        BASE.SLACK_BOT_TOKEN,
        BASE.SLACK_SIGNING_SECRET,
        BASE.DOCS_API_KEY,
        'xapp-1-A0-123-abcdef0123456789',
      ]),
    );
  });

  it("includes the Redis URL's password, as written and decoded", () => {
    const secrets = secretsOf(
      loadConfig({ ...BASE, REDIS_URL: 'rediss://default:s3cr%40t-redis-pass@redis.internal:6380/0' }),
    );
    expect(secrets).toContain('s3cr%40t-redis-pass');
    expect(secrets).toContain('s3cr@t-redis-pass');
    expect(secrets).not.toContain('default');
  });

  it('adds nothing for a Redis URL without a password', () => {
    const withoutRedis = secretsOf(loadConfig(BASE));
    expect(secretsOf(loadConfig({ ...BASE, REDIS_URL: 'redis://127.0.0.1:6379' }))).toEqual(withoutRedis);
    expect(secretsOf(loadConfig({ ...BASE, REDIS_URL: 'redis://user@127.0.0.1:6379' }))).toEqual(
      withoutRedis,
    );
  });

  it('keeps the Redis password out of log lines', () => {
    const redisUrl = 'redis://:hunter2-hunter2-hunter2@redis:6379';
    const config = loadConfig({ ...BASE, REDIS_URL: redisUrl });
    const lines: string[] = [];
    const logger = createLogger({
      level: 'info',
      secrets: secretsOf(config),
      destination: { write: (line: string) => lines.push(line) },
    });
    logger.error({ url: redisUrl }, `redis connection to ${redisUrl} failed`);
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('hunter2-hunter2-hunter2');
    expect(lines[0]).toContain('redis://:[redacted]@redis:6379');
  });
});

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
