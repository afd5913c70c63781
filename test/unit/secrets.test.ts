import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/common/config.js';
import { secretsOf } from '../../src/common/config-secrets.js';
import { createLogger } from '../../src/common/logger.js';

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
