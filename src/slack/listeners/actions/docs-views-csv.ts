import type { App, BlockButtonAction } from '@slack/bolt';
import { describeError, errorCode } from '../../../common/errors.js';
import { decodeReportRequest } from '../../../insights/page-views/page-views-reports.js';
import { describePageViewsFailure, describeUploadFailure } from '../../messages/page-views-replies.js';
import { CSV_REPORT_ACTION } from '../../messages/page-views-report.js';
import { SlackDeliveryError } from '../../slack-gateway.js';
import type { ButtonArgs } from '../args.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';
import { respondSafely } from '../respond-safely.js';

export type DocsViewsCsvDeps = Pick<SlackDeps, 'access' | 'pageViews' | 'logger' | 'limits'>;

/** The DM between the bot and a person (conversations.open, im:write): Bolt's client for the click. */
type OpenDirectMessage = (user: string) => Promise<string | undefined>;

export function registerDocsViewsCsvAction(app: App, deps: RequestDeps<DocsViewsCsvDeps>): void {
  app.action<BlockButtonAction>(CSV_REPORT_ACTION, async (args) => {
    const mine = deps.of(args.context);
    if (!mine) return;
    const open: OpenDirectMessage = async (user) => {
      try {
        return (await args.client.conversations.open({ users: user })).channel?.id;
      } catch (error) {
        // Slack's own code (`missing_scope`, …) for the reply; never the token or the request.
        const code = (error as { data?: { error?: unknown } }).data?.error;
        throw new SlackDeliveryError(typeof code === 'string' ? code : 'dm_failed', 'could not open the DM');
      }
    };
    await docsViewsCsvAction(mine, open)(args);
  });
}

/**
 * **CSV** on a private report: every page of the report's range uploaded (files.uploadV2; the manifest
 * grants files:write) to the clicker's direct message with the bot, so the rows stay private.
 */
export function docsViewsCsvAction(deps: DocsViewsCsvDeps, openDirectMessage: OpenDirectMessage) {
  return async ({ ack, body, action, respond }: ButtonArgs): Promise<void> => {
    await ack();
    const { analytics } = deps.pageViews;
    const reply = (text: string) => respondSafely(respond, { text }, deps.logger, { replaceOriginal: false });
    const channelId = body.channel?.id;
    const request = decodeReportRequest(action.value);
    if (!channelId || !request) {
      await reply('I can no longer read this button. Run `/docs-views csv` for the CSV.');
      return;
    }
    const access = deps.access.check(body.user.id, channelId);
    if (!access.ok) {
      await reply("I can't send reports from this conversation to you.");
      return;
    }
    try {
      const dm = await openDirectMessage(body.user.id);
      if (!dm) throw new SlackDeliveryError('channel_not_found', 'no direct message channel');
      // The channel's project: button values never choose one.
      await analytics.uploadCsv(dm, analytics.inChannel(request, channelId), body.user.id);
      await reply('I sent you the CSV of every page in a direct message.');
    } catch (error) {
      deps.logger.info({ error: describeError(error) }, 'could not send the page-view CSV');
      await reply(
        error instanceof SlackDeliveryError || errorCode(error) === undefined
          ? describeUploadFailure(errorCode(error))
          : describePageViewsFailure(error, analytics.now(), deps.limits),
      );
    }
  };
}
