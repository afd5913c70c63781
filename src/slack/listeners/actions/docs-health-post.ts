import type { App, BlockButtonAction } from '@slack/bolt';
import { describeError, errorCode } from '../../../common/errors.js';
import { parseHealthCommand } from '../../../insights/health/health-reports.js';
import { POST_HEALTH_ACTION } from '../../messages/health-report.js';
import { describePageViewsFailure, describePostFailure } from '../../messages/page-views-replies.js';
import { SlackDeliveryError } from '../../slack-gateway.js';
import type { ButtonArgs } from '../args.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';
import { respondSafely } from '../respond-safely.js';

export type DocsHealthPostDeps = Pick<SlackDeps, 'access' | 'health' | 'logger' | 'limits'>;

export function registerDocsHealthPostAction(app: App, deps: RequestDeps<DocsHealthPostDeps>): void {
  app.action<BlockButtonAction>(POST_HEALTH_ACTION, deps.each(docsHealthPostAction));
}

/**
 * "Post to channel" on an ephemeral `/docs-health` report: the same days and top N (from the cache while it
 * is fresh) posted in the channel, fix buttons included; the ephemeral copy is replaced by a confirmation.
 */
export function docsHealthPostAction(deps: DocsHealthPostDeps) {
  return async ({ ack, body, action, respond }: ButtonArgs): Promise<void> => {
    await ack();
    const reply = (text: string, replaceOriginal: boolean) =>
      respondSafely(respond, { text }, deps.logger, { replaceOriginal });
    const channelId = body.channel?.id;
    const parsed = parseHealthCommand(action.value);
    if (!channelId || !deps.health || parsed.kind !== 'report' || !action.value) {
      await reply('This button no longer works. Run `/docs-health` again.', false);
      return;
    }
    const access = deps.access.check(body.user.id, channelId);
    if (!access.ok) {
      await reply("You can't post reports in this conversation.", false);
      return;
    }
    const { reports } = deps.health;
    try {
      await reports.publish(channelId, parsed.request, body.user.id);
      await reply('Posted the docs-health report to the channel.', true);
    } catch (error) {
      deps.logger.info({ error: describeError(error) }, 'could not post docs-health report');
      await reply(
        error instanceof SlackDeliveryError
          ? describePostFailure(errorCode(error))
          : describePageViewsFailure(error, reports.now(), deps.limits),
        false,
      );
    }
  };
}
