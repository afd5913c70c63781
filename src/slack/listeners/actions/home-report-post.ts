import type { App } from '@slack/bolt';
import { describeError, errorCode } from '../../../common/errors.js';
import { parseHealthCommand } from '../../../insights/health/health-reports.js';
import { decodeReportRequest } from '../../../insights/page-views/page-views-reports.js';
import { accessDeniedMessage } from '../../command-text.js';
import {
  HOME_POST_CHANNEL_ACTION,
  HOME_POST_CHANNEL_BLOCK,
  HOME_REPORT_POST_CALLBACK,
  type HomeReportPostMetadata,
} from '../../messages/home-report-modal.js';
import type { SubmissionErrors, SubmittedView } from '../../messages/job-modal.js';
import { describePageViewsFailure, describePostFailure } from '../../messages/page-views-replies.js';
import { SlackDeliveryError } from '../../slack-gateway.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';
import { type PrivateAnswerClient, tellPrivately } from '../tell-privately.js';

export type HomeReportPostDeps = Pick<
  SlackDeps,
  'access' | 'logger' | 'limits' | 'pageViews' | 'health' | 'afterAck'
>;

/** The parts of the report modal's `view_submission` read here. */
export interface HomeReportPostArgs {
  ack: (response?: SubmissionErrors) => Promise<void>;
  body: { user: { id: string }; view: SubmittedView };
  client: PrivateAnswerClient;
}

export function registerHomeReportPost(app: App, deps: RequestDeps<HomeReportPostDeps>): void {
  app.view(HOME_REPORT_POST_CALLBACK, deps.each(homeReportPost) as never);
}

const CHANNEL_ID = /^[CG][A-Z0-9]{2,}$/;
const inForm = (message: string): SubmissionErrors => ({
  response_action: 'errors',
  errors: { [HOME_POST_CHANNEL_BLOCK]: message },
});
const LOST = "This report can't be posted any more. Press *Views* or *Health* on Home again.";

function metadataOf(view: SubmittedView): HomeReportPostMetadata | undefined {
  try {
    const parsed = JSON.parse(view.private_metadata ?? '') as Partial<HomeReportPostMetadata>;
    if ((parsed.kind !== 'views' && parsed.kind !== 'health') || typeof parsed.request !== 'string')
      return undefined;
    return { kind: parsed.kind, request: parsed.request };
  } catch {
    return undefined;
  }
}

/**
 * Post to channel on a report opened from Home: the same report (its days and top N, from the cache while
 * fresh) posted in the picked channel, through the report's own posting path. Access to that channel is
 * asked on the submit; the form closes at once and a failure is told privately.
 */
export function homeReportPost(deps: HomeReportPostDeps) {
  return async ({ ack, body, client }: HomeReportPostArgs): Promise<void> => {
    const metadata = metadataOf(body.view);
    const picked =
      body.view.state?.values?.[HOME_POST_CHANNEL_BLOCK]?.[HOME_POST_CHANNEL_ACTION]?.selected_conversation;
    if (!metadata) return void (await ack(inForm(LOST)));
    if (typeof picked !== 'string' || !CHANNEL_ID.test(picked))
      return void (await ack(inForm('Pick the channel the report should go to.')));
    const channelId = picked;
    const userId = body.user.id;
    const access = deps.access.check(userId, channelId);
    if (!access.ok) return void (await ack(inForm(accessDeniedMessage(access.reason, access.ask))));
    const post = postOf(deps, metadata, channelId, userId);
    if (!post) return void (await ack(inForm(LOST)));
    await ack();
    deps.afterAck(async () => {
      try {
        await post();
      } catch (error) {
        deps.logger.info({ channelId, error: describeError(error) }, 'could not post a report from Home');
        const text =
          error instanceof SlackDeliveryError
            ? describePostFailure(errorCode(error))
            : describePageViewsFailure(error, deps.pageViews.analytics.now(), deps.limits);
        await tellPrivately(client, { userId, channelId }, text, deps.logger);
      }
    });
  };
}

/** The report's own "Post to channel" for the channel's project; undefined when the metadata reads as none. */
function postOf(
  deps: HomeReportPostDeps,
  metadata: HomeReportPostMetadata,
  channelId: string,
  userId: string,
): (() => Promise<unknown>) | undefined {
  if (metadata.kind === 'health') {
    const parsed = parseHealthCommand(metadata.request);
    const reports = deps.health?.reports;
    if (parsed.kind !== 'report' || !reports) return undefined;
    return () => reports.publish(channelId, parsed.request, userId);
  }
  const request = decodeReportRequest(metadata.request);
  const { analytics } = deps.pageViews;
  return request && (() => analytics.publish(channelId, analytics.inChannel(request, channelId), userId));
}
