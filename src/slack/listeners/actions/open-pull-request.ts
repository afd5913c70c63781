import type { App } from '@slack/bolt';
import { OPEN_PULL_REQUEST_ACTION } from '../../messages/job-card.js';

/**
 * "View pull request" is a link button: Slack opens the URL itself but still sends the click here, and an
 * unacknowledged click shows the user an error marker. Nothing else to do.
 */
export function registerOpenPullRequestAction(app: App): void {
  app.action(OPEN_PULL_REQUEST_ACTION, async ({ ack }) => {
    await ack();
  });
}
