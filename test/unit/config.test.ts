import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/common/config.js';

const valid = {
  SLACK_BOT_TOKEN: 'xoxb-1-2-abc',
  SLACK_SIGNING_SECRET: 'secret-secret',
  DOCS_API_KEY: 'svc_abcdefghijklmnopqrstuvwxyz',
  DOCS_PROJECT_ID: 'proj_1',
};

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('the GitHub doorbell: 2 s by default, 0 turns it off, anything below 500 ms is refused', () => {
    expect(loadConfig(valid).github.doorbellIntervalMs).toBe(2000);
    expect(loadConfig({ ...valid, PR_DOORBELL_INTERVAL_MS: '0' }).github.doorbellIntervalMs).toBe(0);
    expect(problemsOf({ ...valid, PR_DOORBELL_INTERVAL_MS: '100' }).join('\n')).toMatch(
      /PR_DOORBELL_INTERVAL_MS.*0 \(off\) or at least 500/,
    );
    expect(problemsOf({ ...valid, PR_DOORBELL_READS_PER_SECOND: '100' }).join('\n')).toMatch(
      /PR_DOORBELL_READS_PER_SECOND/,
    );
  });

  it('SLACK_APP_TIER: internal for one workspace, distributed in OAuth mode, raised by the operator', () => {
    expect(loadConfig(valid).slack.appTier).toBe('internal');
    const oauth = {
      SLACK_SIGNING_SECRET: 'secret-secret',
      SLACK_CLIENT_ID: '123.456',
      SLACK_CLIENT_SECRET: 'client-secret',
      SLACK_STATE_SECRET: 'state-secret-state-secret-0123456',
      DATA_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
      REDIS_URL: 'redis://localhost:6379',
    };
    expect(loadConfig(oauth).slack.appTier).toBe('distributed');
    expect(loadConfig({ ...oauth, SLACK_APP_TIER: 'marketplace' }).slack.appTier).toBe('marketplace');
    expect(problemsOf({ ...valid, SLACK_APP_TIER: 'premium' }).join('\n')).toMatch(
      /SLACK_APP_TIER must be one of internal, marketplace, distributed/,
    );
  });

  it('applies documented defaults', () => {
    const config = loadConfig(valid);
    expect(config.port).toBe(3000);
    expect(config.poll).toEqual({ intervalMs: 5000, maxIntervalMs: 60000, maxAgeMs: 6 * 3600 * 1000 });
    expect(config.redisUrl).toBeUndefined();
    expect(config.access).toEqual({
      channelIds: [],
      userIds: [],
      adminUserIds: [],
      followUpsFrom: 'anyone',
      allowExternalUsers: false,
      jobReaction: 'memo',
    });
    expect(config.slack.appToken).toBeUndefined();
    expect(config.logLevel).toBe('info');
  });

  it('reads ALLOW_EXTERNAL_USERS as true or false only', () => {
    expect(loadConfig({ ...valid, ALLOW_EXTERNAL_USERS: 'true' }).access.allowExternalUsers).toBe(true);
    expect(loadConfig({ ...valid, ALLOW_EXTERNAL_USERS: 'false' }).access.allowExternalUsers).toBe(false);
    expect(problemsOf({ ...valid, ALLOW_EXTERNAL_USERS: 'yes' })).toEqual([
      'ALLOW_EXTERNAL_USERS must be true or false',
    ]);
  });

  it('lists every missing variable at once, each with how to fix it', () => {
    const problems = problemsOf({});
    expect(problems.map((p) => p.split(' ')[0])).toEqual(
      expect.arrayContaining(['SLACK_BOT_TOKEN', 'DOCS_API_KEY', 'DOCS_PROJECT_ID', 'SLACK_SIGNING_SECRET']),
    );
    expect(problems.find((p) => p.startsWith('SLACK_BOT_TOKEN'))).toContain('xoxb-');
    expect(problems.find((p) => p.startsWith('SLACK_SIGNING_SECRET'))).toContain('SLACK_APP_TOKEN');
  });

  it('reports invalid values with the variable name', () => {
    const problems = problemsOf({
      ...valid,
      SLACK_BOT_TOKEN: 'xoxp-user-token',
      DOCS_API_KEY: 'not-an-admin-key',
      PORT: 'eighty',
      POLL_INTERVAL_MS: '5000',
      POLL_MAX_INTERVAL_MS: '1000',
      REDIS_URL: 'localhost:6379',
      ALLOWED_USER_IDS: 'U123, bob',
      LOG_LEVEL: 'loud',
    });
    const names = problems.map((p) => p.split(' ')[0]);
    expect(names).toEqual(
      expect.arrayContaining([
        'SLACK_BOT_TOKEN',
        'DOCS_API_KEY',
        'PORT',
        'POLL_MAX_INTERVAL_MS',
        'REDIS_URL',
        'ALLOWED_USER_IDS.1',
        'LOG_LEVEL',
      ]),
    );
  });

  it('reads HEALTH_IMPACT_DAYS (default 14, 1–180) and names it when invalid', () => {
    expect(loadConfig(valid).analytics.healthImpactDays).toBe(14);
    expect(loadConfig({ ...valid, HEALTH_IMPACT_DAYS: '30' }).analytics.healthImpactDays).toBe(30);
    for (const bad of ['0', '181', 'two weeks', '1.5']) {
      expect(problemsOf({ ...valid, HEALTH_IMPACT_DAYS: bad }).join()).toContain('HEALTH_IMPACT_DAYS');
    }
  });

  it('checks the default weekly report settings together', () => {
    expect(problemsOf({ ...valid, WEEKLY_REPORT_CHANNEL: 'C0123' }).join()).toContain(
      'WEEKLY_REPORT_CRON is required',
    );
    const bad = problemsOf({
      ...valid,
      WEEKLY_REPORT_CHANNEL: 'C0123',
      WEEKLY_REPORT_CRON: 'every monday',
      WEEKLY_REPORT_TZ: 'Mars/Olympus',
    });
    expect(bad.map((p) => p.split(' ')[0])).toEqual(
      expect.arrayContaining(['WEEKLY_REPORT_CRON', 'WEEKLY_REPORT_TZ']),
    );
    const config = loadConfig({
      ...valid,
      WEEKLY_REPORT_CHANNEL: 'C0123',
      WEEKLY_REPORT_CRON: '0 9 * * 1',
      WEEKLY_REPORT_TZ: 'Europe/Berlin',
    });
    expect(config.analytics.weeklyReport).toEqual({
      channel: 'C0123',
      cron: '0 9 * * 1',
      timeZone: 'Europe/Berlin',
    });
  });

  it('never echoes secret values in its message', () => {
    try {
      loadConfig({ ...valid, SLACK_BOT_TOKEN: 'xoxp-very-secret-user-token', PORT: 'x' });
    } catch (error) {
      expect((error as Error).message).not.toContain('xoxp-very-secret-user-token');
      return;
    }
    throw new Error('expected a ConfigError');
  });

  it('Socket Mode needs no signing secret; lists are trimmed', () => {
    const { SLACK_SIGNING_SECRET: _omit, ...rest } = valid;
    const config = loadConfig({ ...rest, SLACK_APP_TOKEN: 'xapp-1-abc', ALLOWED_CHANNEL_IDS: ' C1 ,C2,, ' });
    expect(config.slack.appToken).toBe('xapp-1-abc');
    expect(config.access.channelIds).toEqual(['C1', 'C2']);
  });

  it('an unedited copy of .env.example does not boot, and names every placeholder', () => {
    const example = parseEnv(readFileSync(join(import.meta.dirname, '..', '..', '.env.example'), 'utf8'));
    // Following the HTTP steps must not select Socket Mode by accident.
    expect(example.SLACK_APP_TOKEN ?? '').toBe('');
    const problems = problemsOf(example as Record<string, string>);
    for (const name of ['SLACK_BOT_TOKEN', 'DOCS_API_KEY', 'DOCS_PROJECT_ID']) {
      expect(
        problems.find((p) => p.startsWith(`${name} `)),
        name,
      ).toMatch(/placeholder/);
    }
  });

  it('refuses placeholder values however they are set', () => {
    const problems = problemsOf({
      ...valid,
      SLACK_APP_TOKEN: 'xapp-your-app-token',
      SLACK_SIGNING_SECRET: 'your-signing-secret',
    });
    expect(problems.map((p) => p.split(' ')[0])).toEqual(['SLACK_SIGNING_SECRET', 'SLACK_APP_TOKEN']);
    expect(problems.join('\n')).not.toContain('your-');
  });

  it('reads DOCS_AGENT_REACTION as an emoji name, with or without colons, and refuses anything else', () => {
    expect(loadConfig({ ...valid, DOCS_AGENT_REACTION: ':robot_face:' }).access.jobReaction).toBe(
      'robot_face',
    );
    expect(loadConfig({ ...valid, DOCS_AGENT_REACTION: '+1' }).access.jobReaction).toBe('+1');
    expect(problemsOf({ ...valid, DOCS_AGENT_REACTION: 'Big Smile' })).toEqual([
      'DOCS_AGENT_REACTION must be an emoji name such as memo (lowercase, no spaces)',
    ]);
  });
});

describe('loadConfig in OAuth mode', () => {
  const oauth = {
    SLACK_SIGNING_SECRET: 'secret-secret',
    SLACK_CLIENT_ID: '1.2',
    SLACK_CLIENT_SECRET: 'client-secret',
    SLACK_STATE_SECRET: 'x'.repeat(32),
    DATA_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
  };

  it('refuses a SLACK_STATE_SECRET shorter than 32 characters, naming its length and how to make one', () => {
    expect(loadConfig(oauth).oauth?.stateSecret).toBe(oauth.SLACK_STATE_SECRET);
    const problems = problemsOf({ ...oauth, SLACK_STATE_SECRET: 'state-secret' });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('SLACK_STATE_SECRET is 12 characters: use at least 32');
    expect(problems[0]).toContain('openssl rand -base64 32');
    expect(problems[0]).not.toContain('state-secret');
  });
});
