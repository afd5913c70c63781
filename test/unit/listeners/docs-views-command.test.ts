import { describe, expect, it } from 'vitest';
import { DocsApiError } from '../../../src/common/docs-api-error.js';
import {
  type DocsViewsCommandDeps,
  docsViewsCommand,
} from '../../../src/slack/listeners/commands/docs-views.js';
import {
  CSV_REPORT_ACTION,
  POST_REPORT_ACTION,
  SCHEDULE_REPORT_ACTION,
} from '../../../src/slack/messages/page-views-report.js';
import { SlackDeliveryError } from '../../../src/slack/slack-errors.js';
import { access, allText, answers, CHANNEL, only, recordingLogger, slashCommand, USER } from './fakes.js';
import { pageViewsFakes, REPORT, REQUEST, schedule } from './page-views-fixtures.js';

const OTHER_CHANNEL = 'C0PRIVATE';

function setup(options: { admins?: string[]; schedules?: ReturnType<typeof schedule>[] } = {}) {
  const fakes = pageViewsFakes(options.schedules);
  const { logger, lines } = recordingLogger();
  const deps: DocsViewsCommandDeps = {
    access: access({ adminUserIds: options.admins ?? [] }),
    pageViews: fakes.pageViews,
    logger,
    limits: { analyticsPerHour: 1000 },
  };
  const { ack, respond, calls } = answers();
  const run = (text: string, user = USER) =>
    docsViewsCommand(deps)({ command: slashCommand('/docs-views', text, { user_id: user }), ack, respond });
  return { run, ack, respond, calls, lines, ...fakes };
}

/** The action ids of a message's buttons. */
function actionIds(message: unknown): string[] {
  const blocks = (message as { blocks?: Array<{ type: string; elements?: Array<{ action_id?: string }> }> })
    .blocks;
  return (blocks ?? []).flatMap((b) =>
    b.type === 'actions' ? (b.elements ?? []).map((e) => e.action_id!) : [],
  );
}

describe('docsViewsCommand', () => {
  it('answers help in the acknowledgement', async () => {
    const t = setup();
    await t.run('help');
    const answer = only(t.ack);
    expect(answer.response_type).toBe('ephemeral');
    expect(allText(answer)).toContain('/docs-views schedule &lt;weekday&gt; &lt;HH:MM&gt;');
    expect(t.analytics.requestFor).not.toHaveBeenCalled();
  });

  it('names the unreadable token in an ephemeral acknowledgement, and fetches nothing', async () => {
    const t = setup();
    await t.run('30d top 5 7x');
    const answer = only(t.ack);
    expect(answer.response_type).toBe('ephemeral');
    expect(answer.text).toContain("I couldn't read `7x`");
    expect(answer.text).toContain('Nothing was fetched');
    expect(t.analytics.report).not.toHaveBeenCalled();
    expect(t.respond).not.toHaveBeenCalled();
  });

  it('acknowledges before reading anything (even a cached report), then sends it with the post button', async () => {
    const t = setup();
    t.analytics.report.mockImplementationOnce(async () => {
      t.calls.push('report');
      return REPORT;
    });
    await t.run('30d top 5');
    expect(t.analytics.requestFor).toHaveBeenCalledWith(
      { range: { kind: 'days', days: 30 }, top: 5, prefix: undefined },
      'UTC',
      expect.any(Number),
      // The channel decides the project.
      CHANNEL,
    );
    // The state store holds the cache and can be slow or away: nothing waits on it before the ack.
    expect(t.calls).toEqual(['ack', 'report', 'respond']);
    expect(t.ack).toHaveBeenCalledWith();
    expect(t.analytics.report).toHaveBeenCalledWith(REQUEST);
    const answer = only(t.respond);
    expect(answer.response_type).toBe('ephemeral');
    expect(allText(answer)).toContain('Page views · Last 30 days');
    // The top pages as a table (its stand-in list left out where Slack takes it), linked to the docs.
    expect(JSON.stringify(answer)).toContain('"url":"https://docs.acme.test/api/jobs"');
    expect(allText(answer)).not.toContain('<https://docs.acme.test/api/jobs|/api/jobs>');
    expect(actionIds(answer)).toEqual([POST_REPORT_ACTION, CSV_REPORT_ACTION, SCHEDULE_REPORT_ACTION]);
  });

  it('acknowledges first and answers via response_url when the report needs the API', async () => {
    const t = setup();
    t.analytics.report.mockImplementationOnce(async () => {
      t.calls.push('report');
      return REPORT;
    });
    await t.run('');
    expect(t.calls).toEqual(['ack', 'report', 'respond']);
    expect(t.ack).toHaveBeenCalledWith();
    const answer = only(t.respond);
    expect(answer.response_type).toBe('ephemeral');
    expect(allText(answer)).toContain('Page views · Last 30 days');
  });

  it('explains a failed report and what to do, never as silence', async () => {
    const t = setup();
    t.analytics.report.mockRejectedValueOnce(new DocsApiError('unavailable', 'timeout'));
    await t.run('7d');
    expect(only(t.respond).text).toMatch(/did not answer in time.*Try again in a few minutes/);
    expect(t.lines.join('')).toContain('page-view report failed');
  });

  it('uploads the CSV to the channel after the report, and says so when the upload fails', async () => {
    const t = setup();
    await t.run('30d top 5 /api csv');
    expect(t.analytics.uploadCsv).toHaveBeenCalledWith(CHANNEL, REQUEST, USER);

    const failing = setup();
    failing.analytics.uploadCsv.mockRejectedValueOnce(
      new SlackDeliveryError('not_in_channel', 'Slack call failed'),
    );
    await failing.run('csv');
    expect(failing.respond).toHaveBeenCalledTimes(2);
    expect(allText(failing.respond.mock.calls[1]![0])).toContain(
      "I couldn't upload the CSV: I'm not a member",
    );
  });

  it('schedules the weekly post for this channel in the given time zone', async () => {
    const t = setup();
    await t.run('schedule monday 09:00 Europe/Berlin');
    expect(t.ack).toHaveBeenCalledWith();
    expect(t.weekly.schedule).toHaveBeenCalledWith({
      kind: 'page_views',
      channelId: CHANNEL,
      userId: USER,
      weekday: 1,
      hour: 9,
      minute: 0,
      timeZone: 'Europe/Berlin',
    });
    expect(only(t.respond).text).toMatch(/^Scheduled: every Monday at 09:00 \(Europe\/Berlin\)/);
  });

  it('shows a member only this channel’s schedule; an admin sees every channel’s', async () => {
    const schedules = [schedule(CHANNEL, USER), schedule(OTHER_CHANNEL, 'U0CAROL')];
    const member = setup({ schedules });
    await member.run('schedules');
    expect(member.weekly.list).toHaveBeenCalledWith(CHANNEL, 'page_views');
    const seen = only(member.respond).text;
    expect(seen).toContain(`<#${CHANNEL}> (this channel)`);
    expect(seen).not.toContain(OTHER_CHANNEL);
    expect(seen).not.toContain('U0CAROL');

    const admin = setup({ schedules, admins: [USER] });
    await admin.run('schedules');
    expect(admin.weekly.list).toHaveBeenCalledWith(undefined, 'page_views');
    expect(only(admin.respond).text).toContain(
      `<#${OTHER_CHANNEL}>: every Monday at 09:00 (Europe/Berlin), by <@U0CAROL>`,
    );
  });

  it('tells a member when this channel has no weekly post, without naming others', async () => {
    const t = setup({ schedules: [schedule(OTHER_CHANNEL, 'U0CAROL')] });
    await t.run('schedules');
    expect(only(t.respond).text).toMatch(/^This channel has no weekly page-view post/);
  });

  it('stops this channel’s weekly post', async () => {
    const t = setup();
    await t.run('unschedule');
    expect(t.weekly.unschedule).toHaveBeenCalledWith(CHANNEL, 'page_views');
    expect(only(t.respond).text).toMatch(/^Done: this channel will no longer get/);
  });

  it('refuses a channel outside ALLOWED_CHANNEL_IDS in the acknowledgement', async () => {
    const t = setup();
    const deps: DocsViewsCommandDeps = {
      access: access({ channelIds: ['C0OTHER'] }),
      pageViews: t.pageViews,
      logger: recordingLogger().logger,
    };
    await docsViewsCommand(deps)({
      command: slashCommand('/docs-views', '7d'),
      ack: t.ack,
      respond: t.respond,
    });
    expect(only(t.ack).text).toContain('allow this channel');
    expect(t.analytics.requestFor).not.toHaveBeenCalled();
  });
});
