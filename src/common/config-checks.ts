import { Cron } from 'croner';

/**
 * Rules across variables, checked on the raw environment so they are reported together with field
 * errors (zod skips object refinements once a field has failed).
 */
export function crossFieldProblems(env: NodeJS.ProcessEnv): string[] {
  const problems: string[] = [];
  if (!env.SLACK_APP_TOKEN?.trim() && !env.SLACK_SIGNING_SECRET?.trim()) {
    problems.push(
      'SLACK_SIGNING_SECRET is required in HTTP mode (Basic Information → Signing Secret); or set SLACK_APP_TOKEN to use Socket Mode',
    );
  }
  const port = env.PORT?.trim() || '3000';
  const metricsPort = env.METRICS_PORT?.trim() || '9464';
  if (port === metricsPort && port !== '0')
    problems.push(
      `METRICS_PORT must differ from PORT (${port}): /metrics is served on its own port, never the one Slack reaches`,
    );
  const min = Number(env.POLL_INTERVAL_MS?.trim() || 5000);
  const max = Number(env.POLL_MAX_INTERVAL_MS?.trim() || 60000);
  if (Number.isFinite(min) && Number.isFinite(max) && max < min) {
    problems.push(`POLL_MAX_INTERVAL_MS must be at least POLL_INTERVAL_MS (${min})`);
  }
  const channel = env.WEEKLY_REPORT_CHANNEL?.trim();
  const cron = env.WEEKLY_REPORT_CRON?.trim();
  const timeZone = env.WEEKLY_REPORT_TZ?.trim();
  if (channel && !cron)
    problems.push(
      'WEEKLY_REPORT_CRON is required with WEEKLY_REPORT_CHANNEL, e.g. "0 9 * * 1" (Mondays 09:00)',
    );
  if (cron && !channel)
    problems.push('WEEKLY_REPORT_CHANNEL is required with WEEKLY_REPORT_CRON: the channel ID to post in');
  if (channel && !/^[CG][A-Z0-9]+$/.test(channel))
    problems.push('WEEKLY_REPORT_CHANNEL must be a channel ID such as C0123ABCD');
  if (timeZone && !isTimeZone(timeZone))
    problems.push('WEEKLY_REPORT_TZ must be an IANA time zone such as Europe/Berlin');
  if (cron) {
    try {
      new Cron(cron, { paused: true, timezone: timeZone && isTimeZone(timeZone) ? timeZone : 'UTC' }).stop();
    } catch {
      problems.push(
        'WEEKLY_REPORT_CRON must be a cron pattern such as "0 9 * * 1" (minute hour day month weekday)',
      );
    }
  }
  return problems;
}

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
