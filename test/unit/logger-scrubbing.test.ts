import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/common/config.js';
import { secretsOf } from '../../src/common/config-secrets.js';
import { createLogger } from '../../src/common/logger.js';

function collect(secrets: string[]) {
  const lines: string[] = [];
  const logger = createLogger({
    level: 'info',
    secrets,
    destination: { write: (l: string) => lines.push(l) },
  });
  return { logger, lines };
}

describe('log scrubbing', () => {
  it('removes a secret holding " and \\ however it was JSON-escaped', () => {
    const secret = 'pa"ss\\wo"rd\\';
    const { logger, lines } = collect([secret]);
    logger.error({ password: secret, body: JSON.stringify({ auth: secret }) }, `auth ${secret} failed`);
    expect(lines).toHaveLength(1);
    const line = lines[0] ?? '';
    expect(line).not.toContain(JSON.stringify(secret).slice(1, -1));
    expect(JSON.stringify(JSON.parse(line))).not.toContain('wo\\\\"rd');
    const parsed = JSON.parse(line) as { password: string; body: string; msg: string };
    expect(parsed.password).toBe('[redacted]');
    expect(parsed.msg).toBe('auth [redacted] failed');
    expect(parsed.body).not.toContain('wo\\"rd');
  });

  it('removes secrets shorter than 8 characters, from the config too', () => {
    const config = loadConfig({
      SLACK_BOT_TOKEN: 'xoxb-1111111111-2222222222222-abcdefghijkl',
      SLACK_SIGNING_SECRET: 'signing-secret-0123456789abcdef',
      DOCS_API_KEY: 'svc_0123456789abcdefghij',
      DOCS_PROJECT_ID: 'proj_1',
      REDIS_URL: 'redis://:pw7%25x@redis:6379',
    });
    const secrets = secretsOf(config);
    expect(secrets).toContain('pw7%x');
    const { logger, lines } = collect(secrets);
    logger.warn({ url: 'redis://:pw7%25x@redis:6379' }, 'connecting with pw7%x');
    expect(lines[0]).not.toContain('pw7');
  });
});

describe('log scrubbing at the logger edge covers every credential shape (issue 44)', () => {
  it('drops unknown GitHub, Slack, docs, cloud and private keys from messages and fields', () => {
    const { logger, lines } = collect([]);
    const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----';
    const shapes = [
      'github_pat_11ABCDEFG0123456789_abcdefghijk',
      'xoxq-1234-5678-abcdefABCDEF',
      'svc_live_0123456789abcd',
      'AKIAIOSFODNN7EXAMPLE',
    ];
    logger.warn({ prompt: `use ${shapes.join(' and ')}`, key: pem }, `got ${shapes[3]} and ${pem}`);
    const line = lines.join('');
    for (const secret of [...shapes, 'MIIEowIBAAKCAQEA7']) expect(line).not.toContain(secret);
    expect(line).toContain('[redacted]');
  });
});
