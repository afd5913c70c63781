import type { Outbox } from '../delivery/ports.js';
import type { HealthReport } from '../insights/health/report.js';
import type { PageViewsReport } from '../insights/page-views/report.js';
import type { PostContext, ReportPublisher } from '../insights/ports.js';
import { healthReportMessage } from './messages/health-report.js';
import { pageViewsReportMessage } from './messages/page-views-report.js';
import type { SlackMessage } from './messages/types.js';
import { healthHeadline, pageViewsHeadline, weeklyPost } from './messages/weekly-post.js';
import type { SlackGateway } from './slack-gateway.js';

/** A weekly occurrence's post is remembered past the week (and its grace), so no retry owes it twice. */
const WEEKLY_KEEP_MS = 8 * 24 * 60 * 60 * 1000;

/**
 * Posts page-view and docs-health reports and CSVs to Slack. A post asked for by a click goes out at once
 * (the clicker sees the outcome); one owed once (`once`: a weekly occurrence) goes through the outbox.
 */
export class SlackReportPublisher implements ReportPublisher {
  constructor(
    private readonly gateway: SlackGateway,
    private readonly outbox: Outbox,
    private readonly siteUrl: string | undefined,
  ) {}

  async postReport(channelId: string, report: PageViewsReport, context: PostContext): Promise<void> {
    const message = pageViewsReportMessage(report, {
      siteUrl: this.siteUrl,
      interactive: false,
      // Posts go through the new-blocks gate: the table where Slack takes it, else its stand-in list.
      table: true,
      ...(context.requestedBy ? { requestedBy: context.requestedBy } : {}),
    });
    const { weekly } = context;
    const headline = () => pageViewsHeadline(report);
    const post = weekly
      ? weeklyPost(message, { kind: 'page_views', headline: headline(), ...weekly })
      : message;
    await this.post(channelId, post, context.once);
  }

  async postHealthReport(channelId: string, report: HealthReport, context: PostContext): Promise<void> {
    const message = healthReportMessage(report, {
      siteUrl: this.siteUrl,
      fixButtons: true,
      ...(context.requestedBy ? { requestedBy: context.requestedBy } : {}),
    });
    const { weekly } = context;
    const post = weekly
      ? weeklyPost(message, { kind: 'health', headline: healthHeadline(report), ...weekly })
      : message;
    await this.post(channelId, post, context.once);
  }

  private async post(channelId: string, message: SlackMessage, once: string | undefined): Promise<void> {
    if (!once) {
      await this.gateway.post({ channel: channelId, message });
      return;
    }
    await this.outbox.owe({
      key: once,
      target: { kind: 'post', channel: channelId, threadTs: null },
      payload: message,
      priority: 'reply',
      keepMs: WEEKLY_KEEP_MS,
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
