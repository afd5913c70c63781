import type { HealthReport } from '../insights/health/report.js';
import type { PageViewsReport } from '../insights/page-views/report.js';
import type { ReportPublisher } from '../insights/ports.js';
import { healthReportMessage } from './messages/health-report.js';
import { pageViewsReportMessage } from './messages/page-views-report.js';
import type { SlackGateway } from './slack-gateway.js';

/** Posts page-view and docs-health reports and CSVs to Slack through the gateway. */
export class SlackReportPublisher implements ReportPublisher {
  constructor(
    private readonly gateway: SlackGateway,
    private readonly siteUrl: string | undefined,
  ) {}

  async postReport(
    channelId: string,
    report: PageViewsReport,
    context: { requestedBy?: string },
  ): Promise<void> {
    await this.gateway.post({
      channel: channelId,
      message: pageViewsReportMessage(report, {
        siteUrl: this.siteUrl,
        interactive: false,
        ...(context.requestedBy ? { requestedBy: context.requestedBy } : {}),
      }),
    });
  }

  async postHealthReport(
    channelId: string,
    report: HealthReport,
    context: { requestedBy?: string },
  ): Promise<void> {
    await this.gateway.post({
      channel: channelId,
      message: healthReportMessage(report, {
        siteUrl: this.siteUrl,
        fixButtons: true,
        ...(context.requestedBy ? { requestedBy: context.requestedBy } : {}),
      }),
    });
  }

  async uploadCsv(input: {
    channelId: string;
    filename: string;
    title: string;
    content: string;
    requestedBy: string;
  }): Promise<void> {
    await this.gateway.uploadFile({
      channel: input.channelId,
      filename: input.filename,
      title: input.title,
      content: input.content,
      initialComment: `Page views CSV requested by <@${input.requestedBy}>`,
    });
  }
}
