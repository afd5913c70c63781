import type { App } from '@slack/bolt';
import { OPEN_JOB_PAGE_ACTION, OPEN_PULL_REQUEST_ACTION } from '../../messages/job-card.js';
import type { AckOnlyArgs } from '../args.js';

export function registerOpenPullRequestAction(app: App): void {
  app.action(OPEN_PULL_REQUEST_ACTION, openPullRequestAction);
  // A card's "Open in dashboard" is a link button too.
  app.action(OPEN_JOB_PAGE_ACTION, openPullRequestAction);
}

/**
 * "View pull request" is a link button: Slack opens the URL itself but still sends the click here, and an
 * unacknowledged click shows the user an error marker. Nothing else to do.
 */
export async function openPullRequestAction({ ack }: AckOnlyArgs): Promise<void> {
  await ack();
}
