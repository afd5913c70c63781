import type { App } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import type { AccessDecision } from '../../../common/access-policy.js';
import { describeError } from '../../../common/errors.js';
import { TOP_DEFAULT } from '../../../insights/health/report.js';
import { DEFAULT_RANGE } from '../../../insights/ranges/dates.js';
import { DEFAULT_TOP } from '../../../insights/ranges/grammar.js';
import { accessDeniedMessage } from '../../command-text.js';
import {
  type HomeReportKind,
  homeHealthModal,
  homePageViewsModal,
  homeReportLoadingModal,
  homeReportTextModal,
  withoutCharts,
} from '../../messages/home-report-modal.js';
import { HOME_HEALTH_ACTION, HOME_VIEWS_ACTION } from '../../messages/home-this-week.js';
import { describePageViewsFailure } from '../../messages/page-views-replies.js';
import { notSetUpText } from '../../messages/project-settings.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';

export type HomeReportsDeps = Pick<
  SlackDeps,
  'access' | 'logger' | 'limits' | 'pageViews' | 'health' | 'settings' | 'afterAck'
>;

/** The parts of the `block_actions` payload of Home's Views and Health buttons read here. */
export interface HomeReportArgs {
  ack: () => Promise<void>;
  body: { trigger_id: string; user: { id: string } };
  action: { action_id?: string };
  client: {
    views: {
      open(args: { trigger_id: string; view: ModalView }): Promise<{ view?: { id?: string } }>;
      update(args: { view_id: string; view: ModalView }): Promise<unknown>;
    };
  };
}

export function registerHomeReportActions(app: App, deps: RequestDeps<HomeReportsDeps>): void {
  app.action(HOME_VIEWS_ACTION, deps.each(homeReport) as never);
  app.action(HOME_HEALTH_ACTION, deps.each(homeReport) as never);
}

/**
 * Home has no channel: the person's own access is asked (ALLOWED_USER_IDS); a channel allowlist limits where
 * the bot acts in channels, and this report is theirs alone, of the workspace's docs project.
 */
export function homeAccess(deps: Pick<SlackDeps, 'access'>, userId: string): AccessDecision {
  const decision = deps.access.check(userId, '');
  return decision.ok || decision.reason === 'channel' ? { ok: true } : decision;
}

/**
 * Home's Views and Health: this week's `/docs-views` or `/docs-health` report where the person reads it. The
 * modal opens at once (the trigger_id lives 3 s) saying what it reads; the report replaces it when ready,
 * or a failure in words with what to do. Access and setup are asked again on every click.
 */
export function homeReport(deps: HomeReportsDeps) {
  return async ({ ack, body, action, client }: HomeReportArgs): Promise<void> => {
    await ack();
    const kind: HomeReportKind = action.action_id === HOME_HEALTH_ACTION ? 'health' : 'views';
    const refusal = refusalOf(deps, body.user.id, kind);
    let viewId: string | undefined;
    try {
      const view = refusal ? homeReportTextModal(kind, refusal) : homeReportLoadingModal(kind);
      viewId = (await client.views.open({ trigger_id: body.trigger_id, view })).view?.id;
    } catch (error) {
      // Nowhere else to say it: the click's trigger is spent or Slack refused the modal.
      deps.logger.warn({ kind, error: describeError(error) }, 'could not open a report from Home');
      return;
    }
    if (refusal || !viewId) return;
    const id = viewId;
    deps.afterAck(async () => {
      const view = await reportView(deps, kind);
      await update(deps, client, id, view);
    });
  };
}

/** Why the report cannot be made here, in words; undefined when it can. */
function refusalOf(deps: HomeReportsDeps, userId: string, kind: HomeReportKind): string | undefined {
  const access = homeAccess(deps, userId);
  if (!access.ok) return accessDeniedMessage(access.reason, access.ask);
  if (deps.settings && !deps.settings.isSetUp()) return notSetUpText(deps.settings.installerUserId);
  if (kind === 'health' && !deps.health)
    return 'Docs-health reports are not set up in this app. Ask an admin.';
  return undefined;
}

/** The report as a modal, or the failure the slash command would answer with. */
async function reportView(deps: HomeReportsDeps, kind: HomeReportKind): Promise<ModalView> {
  const health = deps.health;
  try {
    if (kind === 'health' && health) {
      // `/docs-health` with no arguments: the last 7 days, top 5, the workspace's project.
      const request = { range: DEFAULT_RANGE, top: TOP_DEFAULT };
      const report = await health.reports.report(health.reports.inChannel(request, undefined));
      health.reports.fillCharts?.();
      return homeHealthModal(report, health.siteUrl);
    }
    const { analytics, siteUrl } = deps.pageViews;
    // `/docs-views` with no arguments: the last 7 days in UTC, top 10.
    const params = { range: DEFAULT_RANGE, top: DEFAULT_TOP, prefix: undefined };
    const report = await analytics.report(analytics.requestFor(params, 'UTC', analytics.now()));
    analytics.fillCharts?.();
    return homePageViewsModal(report, siteUrl);
  } catch (error) {
    deps.logger.info({ kind, error: describeError(error) }, 'report for Home failed');
    return homeReportTextModal(
      kind,
      describePageViewsFailure(error, deps.pageViews.analytics.now(), deps.limits),
    );
  }
}

/** `views.update`; a workspace or client that refuses the chart gets the report without it. */
async function update(
  deps: HomeReportsDeps,
  client: HomeReportArgs['client'],
  viewId: string,
  view: ModalView,
): Promise<void> {
  try {
    await client.views.update({ view_id: viewId, view });
  } catch (error) {
    const code = (error as { data?: { error?: string } }).data?.error;
    const lighter = withoutCharts(view);
    const retry =
      (code === 'invalid_arguments' || code === 'invalid_blocks') &&
      lighter.blocks.length < view.blocks.length;
    if (!retry) {
      // The person closed the modal, or Slack refused it: nothing is owed once the modal is gone.
      deps.logger.info({ error: describeError(error) }, 'could not show the report on Home');
      return;
    }
    await client.views.update({ view_id: viewId, view: lighter }).catch((again: unknown) => {
      deps.logger.warn(
        { error: describeError(again) },
        'could not show the report on Home without its chart',
      );
    });
  }
}
