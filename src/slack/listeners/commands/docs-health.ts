import type { App } from '@slack/bolt';
import { describeError } from '../../../common/errors.js';
import { parseAlertsCommand } from '../../../insights/alerts/alert-command.js';
import { healthReportCommandText, parseHealthCommand } from '../../../insights/health/health-reports.js';
import type { HealthReport } from '../../../insights/health/report.js';
import { accessDeniedMessage } from '../../command-text.js';
import { docsHealthHelp } from '../../messages/health-help.js';
import { healthReportMessage } from '../../messages/health-report.js';
import {
  describePageViewsFailure,
  invalidPageViewsCommandMessage,
} from '../../messages/page-views-replies.js';
import type { CommandArgs } from '../args.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';
import { owedVia, respondSafely } from '../respond-safely.js';
import { answerAlertsCommand } from './health-alerts.js';
import { answerScheduleCommand } from './weekly-schedules.js';

export type DocsHealthDeps = Pick<SlackDeps, 'access' | 'logger' | 'limits' | 'health' | 'outbox'>;

export function registerDocsHealthCommand(app: App, deps: RequestDeps<DocsHealthDeps>): void {
  app.command('/docs-health', deps.each(docsHealthCommand));
}

export { docsHealthHelp } from '../../messages/health-help.js';

/**
 * `/docs-health`: the ephemeral docs-health report, and its weekly posts (`schedule`, `schedules`, `unschedule`). Unreadable text is answered at once, naming the token,
 * with no API call; the report itself comes via response_url (it may need the API).
 */
export function docsHealthCommand(deps: DocsHealthDeps) {
  return async ({ command, ack, respond }: CommandArgs): Promise<void> => {
    const access = deps.access.check(command.user_id, command.channel_id);
    if (!access.ok) {
      await ack({ response_type: 'ephemeral', text: accessDeniedMessage(access.reason, access.ask) });
      return;
    }
    const alertsCommand = parseAlertsCommand(command.text);
    if (alertsCommand) {
      const alerts = deps.health?.alerts;
      if (!alerts || !deps.health) {
        await ack({
          response_type: 'ephemeral',
          text: 'Docs-health alerts are not set up in this app. Ask an admin.',
        });
        return;
      }
      await ack();
      const { reports } = deps.health;
      const text = await answerAlertsCommand(
        { ...deps, alerts, now: () => reports.now() },
        alertsCommand,
        command,
      );
      await respondSafely(respond, { text }, deps.logger);
      return;
    }
    const parsed = parseHealthCommand(command.text);
    if (parsed.kind === 'help') {
      await ack({ response_type: 'ephemeral', text: docsHealthHelp(command.command) });
      return;
    }
    if (parsed.kind === 'invalid') {
      await ack({
        response_type: 'ephemeral',
        text: invalidPageViewsCommandMessage(command.command, parsed.token, parsed.problem),
      });
      return;
    }
    if (!deps.health) {
      await ack({
        response_type: 'ephemeral',
        text: 'Docs-health reports are not set up in this app. Ask an admin.',
      });
      return;
    }
    if (parsed.kind === 'schedule' || parsed.kind === 'schedules' || parsed.kind === 'unschedule') {
      await ack();
      const { reports, weekly } = deps.health;
      const text = await answerScheduleCommand(
        { ...deps, weekly, now: () => reports.now() },
        'health',
        parsed,
        command,
      );
      await respondSafely(respond, { text }, deps.logger);
      return;
    }
    await ack();
    const { reports, siteUrl } = deps.health;
    let report: HealthReport;
    try {
      report = await reports.report(reports.inChannel(parsed.request, command.channel_id));
    } catch (error) {
      deps.logger.info({ error: describeError(error) }, 'docs-health report failed');
      await respondSafely(
        respond,
        { text: describePageViewsFailure(error, reports.now(), deps.limits) },
        deps.logger,
      );
      return;
    }
    await respondSafely(
      respond,
      healthReportMessage(report, { siteUrl, fixButtons: true, postValue: healthReportCommandText(report) }),
      deps.logger,
      { owed: owedVia(deps.outbox, command.response_url) },
    );
    // What the chart lacks is read once the report is out: the report never waits for its chart.
    reports.fillCharts?.();
  };
}
