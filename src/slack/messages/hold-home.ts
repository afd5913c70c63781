import type { HomeView } from '@slack/types';

/**
 * The Home of a workspace whose docs-agent lost its Slack access (needs a re-install): what happened and
 * how to fix it, and nothing else (nothing of the workspace's data is read for it). The text is ours.
 */
export function holdHomeView(notice: string): HomeView {
  return {
    type: 'home',
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: 'docs-agent needs to be added again' } },
      { type: 'section', text: { type: 'mrkdwn', text: notice } },
    ],
  };
}
