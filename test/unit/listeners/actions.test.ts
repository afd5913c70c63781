import { describe, expect, it } from 'vitest';
import { DocsApiError } from '../../../src/common/docs-api-error.js';
import {
  type DocsViewsPostDeps,
  docsViewsPostAction,
} from '../../../src/slack/listeners/actions/docs-views-post.js';
import { openPullRequestAction } from '../../../src/slack/listeners/actions/open-pull-request.js';
import { OPEN_PULL_REQUEST_ACTION } from '../../../src/slack/messages/job-card.js';
import { POST_REPORT_ACTION, pageViewsReportMessage } from '../../../src/slack/messages/page-views-report.js';
import { SlackDeliveryError } from '../../../src/slack/slack-errors.js';
import { access, answers, buttonClick, CHANNEL, only, recordingLogger, USER } from './fakes.js';
import { pageViewsFakes, REPORT, REQUEST } from './page-views-fixtures.js';

/** The value the "Post to channel" button of a rendered ephemeral report carries. */
function postButtonValue(): string {
  const { blocks } = pageViewsReportMessage(REPORT, { siteUrl: undefined, interactive: true });
  for (const block of blocks)
    if (block.type === 'actions')
      for (const element of block.elements)
        if (element.type === 'button' && element.action_id === POST_REPORT_ACTION) return element.value!;
  throw new Error('no post button');
}

function setup(deps: Partial<DocsViewsPostDeps> = {}) {
  const fakes = pageViewsFakes();
  const { logger, lines } = recordingLogger();
  const { ack, respond, calls } = answers();
  const callback = docsViewsPostAction({
    access: access(),
    pageViews: fakes.pageViews,
    logger,
    limits: { analyticsPerHour: 1000 },
    ...deps,
  });
  const click = (
    value: string | undefined,
    channel: { id: string; name: string } | undefined = undefined,
  ) => {
    const { body, action } = buttonClick(POST_REPORT_ACTION, value, channel ? { channel } : {});
    return callback({ ack, body, action, respond });
  };
  return { click, ack, respond, calls, lines, ...fakes };
}

describe('docsViewsPostAction ("Post to channel")', () => {
  it('acknowledges, posts the report of the button’s range, and replaces the ephemeral report', async () => {
    const t = setup();
    t.analytics.publish.mockImplementationOnce(async () => {
      t.calls.push('publish');
      return REPORT;
    });
    await t.click(postButtonValue());
    expect(t.calls).toEqual(['ack', 'publish', 'respond']);
    // The channel's project, whatever the button value says.
    expect(t.analytics.publish).toHaveBeenCalledWith(
      CHANNEL,
      { ...REQUEST, projectId: `proj_of_${CHANNEL}` },
      USER,
    );
    expect(only(t.respond)).toMatchObject({
      response_type: 'ephemeral',
      replace_original: true,
      text: 'Posted the report to the channel.',
    });
  });

  it('says the button no longer works when its value is unreadable, and posts nothing', async () => {
    for (const value of [undefined, 'not-a-request', '{"range":1}']) {
      const t = setup();
      await t.click(value);
      expect(t.ack).toHaveBeenCalledOnce();
      expect(only(t.respond)).toMatchObject({
        replace_original: false,
        text: 'This button no longer works. Run `/docs-views` again.',
      });
      expect(t.analytics.publish).not.toHaveBeenCalled();
    }
  });

  it('refuses to post in a conversation outside ALLOWED_CHANNEL_IDS', async () => {
    const t = setup({ access: access({ channelIds: ['C0OTHER'] }) });
    await t.click(postButtonValue());
    expect(only(t.respond).text).toBe("You can't post reports in this conversation.");
    expect(t.analytics.publish).not.toHaveBeenCalled();
  });

  it('explains a post Slack refused, about the report (not a job), keeping the ephemeral report', async () => {
    const cases: Array<[string, RegExp]> = [
      [
        'not_in_channel',
        /^I'm not a member of this conversation, so I can't post the report here\. Invite me/,
      ],
      ['channel_not_found', /can't post the report here/],
      ['shutting_down', /^I was restarting before I could post the report, so it was not posted\. Try again/],
      ['is_archived', /^This channel is archived/],
      ['fatal_error', /so the report was not posted\. Try again in a moment/],
    ];
    for (const [code, expected] of cases) {
      const t = setup();
      t.analytics.publish.mockRejectedValueOnce(new SlackDeliveryError(code, 'Slack call failed'));
      await t.click(postButtonValue());
      const answer = only(t.respond);
      expect(answer.replace_original).toBe(false);
      expect(answer.text).toMatch(expected);
      expect(answer.text).not.toMatch(/\bjob\b/);
      expect(t.lines.join('')).toContain('could not post page-view report');
    }
  });

  it('explains a report the docs platform could not build, naming the configured budget', async () => {
    const t = setup();
    t.analytics.publish.mockRejectedValueOnce(
      new DocsApiError('rate_limited', 'limited', { retryAfterMs: 120_000 }),
    );
    await t.click(postButtonValue());
    expect(only(t.respond).text).toMatch(/analytics limit for the organisation \(1,000 requests per hour\)/);
  });
});

describe('openPullRequestAction ("View pull request")', () => {
  it('only acknowledges: Slack opens the link itself', async () => {
    const { ack } = answers();
    await openPullRequestAction({ ack });
    expect(ack).toHaveBeenCalledOnce();
    expect(ack).toHaveBeenCalledWith();
    expect(OPEN_PULL_REQUEST_ACTION).toBeTruthy();
  });
});
