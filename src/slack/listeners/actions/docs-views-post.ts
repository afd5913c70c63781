import type { App, BlockButtonAction } from '@slack/bolt';
import { describeError, errorCode } from '../../../common/errors.js';
import { decodeReportRequest } from '../../../insights/page-views/page-views-reports.js';
import { describePageViewsFailure, describePostFailure } from '../../messages/page-views-replies.js';
import { POST_REPORT_ACTION } from '../../messages/page-views-report.js';
import { SlackDeliveryError } from '../../slack-gateway.js';
import type { ButtonArgs } from '../args.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';
import { respondSafely } from '../respond-safely.js';

export type DocsViewsPostDeps = Pick<SlackDeps, 'access' | 'pageViews' | 'logger' | 'limits'>;

export function registerDocsViewsPostAction(app: App, deps: RequestDeps<DocsViewsPostDeps>): void {
  app.action<BlockButtonAction>(POST_REPORT_ACTION, deps.each(docsViewsPostAction));
}

/** "Post to channel" on an ephemeral report: re-renders it from the cached range and posts it. */
export function docsViewsPostAction(deps: DocsViewsPostDeps) {
  return async ({ ack, body, action, respond }: ButtonArgs): Promise<void> => {
    await ack();
    const { analytics } = deps.pageViews;
    const reply = (text: string, replaceOriginal: boolean) =>
      respondSafely(respond, { text }, deps.logger, { replaceOriginal });
    const channelId = body.channel?.id;
    const request = decodeReportRequest(action.value);
    if (!channelId || !request) {
      await reply('This button no longer works. Run `/docs-views` again.', false);
      return;
    }
    const access = deps.access.check(body.user.id, channelId);
    if (!access.ok) {
      await reply("You can't post reports in this conversation.", false);
      return;
    }
    try {
      // The channel's project: button values never choose one.
      await analytics.publish(channelId, analytics.inChannel(request, channelId), body.user.id);
      await reply('Posted the report to the channel.', true);
    } catch (error) {
      deps.logger.info({ error: describeError(error) }, 'could not post page-view report');
      await reply(
        error instanceof SlackDeliveryError
          ? describePostFailure(errorCode(error))
          : describePageViewsFailure(error, analytics.now(), deps.limits),
        false,
      );
    }
  };
}
