import type { App } from '@slack/bolt';
import { describeError, errorCode } from '../../../common/errors.js';
import type { PageViewsReport } from '../../../insights/page-views/report.js';
import { parsePageViewsCommand } from '../../../insights/ranges/grammar.js';
import { accessDeniedMessage } from '../../command-text.js';
import { pageViewsHelpMessage } from '../../messages/page-views-help.js';
import {
  describePageViewsFailure,
  describeUploadFailure,
  invalidPageViewsCommandMessage,
} from '../../messages/page-views-replies.js';
import { pageViewsReportMessage } from '../../messages/page-views-report.js';
import type { CommandArgs } from '../args.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';
import { owedVia, respondSafely } from '../respond-safely.js';
import { answerScheduleCommand } from './weekly-schedules.js';

export type DocsViewsCommandDeps = Pick<SlackDeps, 'access' | 'pageViews' | 'logger' | 'limits' | 'outbox'>;

export function registerDocsViewsCommand(app: App, deps: RequestDeps<DocsViewsCommandDeps>): void {
  app.command('/docs-views', deps.each(docsViewsCommand));
}

/**
 * `/docs-views`: page-view reports (ephemeral, with a "Post to channel" button; `csv` uploads every page)
 * and weekly schedules. Unreadable text is answered at once, naming the token, with no API call.
 */
export function docsViewsCommand(deps: DocsViewsCommandDeps) {
  return async ({ command, ack, respond }: CommandArgs): Promise<void> => {
    const { analytics, weekly, siteUrl } = deps.pageViews;
    const access = deps.access.check(command.user_id, command.channel_id);
    if (!access.ok) {
      await ack({ response_type: 'ephemeral', text: accessDeniedMessage(access.reason, access.ask) });
      return;
    }
    const parsed = parsePageViewsCommand(command.text);
    const reply = (text: string) => respondSafely(respond, { text }, deps.logger);
    switch (parsed.kind) {
      case 'help':
        await ack({ response_type: 'ephemeral', ...pageViewsHelpMessage(command.command) });
        return;
      case 'invalid':
        await ack({
          response_type: 'ephemeral',
          text: invalidPageViewsCommandMessage(command.command, parsed.token, parsed.problem),
        });
        return;
      case 'schedule':
      case 'schedules':
      case 'unschedule':
        await ack();
        await reply(
          await answerScheduleCommand(
            { ...deps, weekly, now: () => analytics.now() },
            'page_views',
            parsed,
            command,
          ),
        );
        return;
      case 'report': {
        const request = analytics.requestFor(parsed.params, 'UTC', analytics.now(), command.channel_id);
        // Even a cached report is read from the state store (Redis in production), which can be slow or
        // away: acknowledge first; the report follows via response_url.
        await ack();
        let report: PageViewsReport;
        try {
          report = await analytics.report(request);
        } catch (error) {
          deps.logger.info({ error: describeError(error) }, 'page-view report failed');
          await reply(describePageViewsFailure(error, analytics.now(), deps.limits));
          return;
        }
        // A refused report is answered in plain text, not as a failure of the report itself.
        await respondSafely(
          respond,
          pageViewsReportMessage(report, { siteUrl, interactive: true, table: true }),
          deps.logger,
          { owed: owedVia(deps.outbox, command.response_url) },
        );
        // What the chart lacks is read once the report is out: the report never waits for its chart.
        analytics.fillCharts?.();
        if (parsed.csv) {
          try {
            await analytics.uploadCsv(command.channel_id, request, command.user_id);
          } catch (error) {
            deps.logger.info({ error: describeError(error) }, 'CSV upload failed');
            await reply(describeUploadFailure(errorCode(error)));
          }
        }
        return;
      }
    }
  };
}
