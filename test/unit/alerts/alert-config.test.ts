import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/common/config.js';

const base = {
  SLACK_BOT_TOKEN: 'xoxb-1',
  SLACK_SIGNING_SECRET: 'secret',
  DOCS_API_KEY: 'svc_1',
  DOCS_PROJECT_ID: 'proj',
};

describe('HEALTH_ALERT_INTERVAL_MS', () => {
  it('defaults to an hour and takes 1 s to 24 h', () => {
    expect(loadConfig(base).analytics.healthAlertIntervalMs).toBe(3_600_000);
    expect(loadConfig({ ...base, HEALTH_ALERT_INTERVAL_MS: '1000' }).analytics.healthAlertIntervalMs).toBe(
      1000,
    );
    for (const bad of ['500', '90000000', 'hourly']) {
      let problem: unknown;
      try {
        loadConfig({ ...base, HEALTH_ALERT_INTERVAL_MS: bad });
      } catch (error) {
        problem = error;
      }
      expect(problem).toBeInstanceOf(ConfigError);
      expect((problem as ConfigError).problems.join('\n')).toContain('HEALTH_ALERT_INTERVAL_MS');
    }
  });
});
