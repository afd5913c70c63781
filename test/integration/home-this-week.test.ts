import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { closeRedis, connectRedis } from '../../src/state/redis/redis-client.js';
import {
  analyticsRequests,
  fixValue,
  json,
  openHome,
  press,
  seed,
  USER,
  updated,
} from '../support/home-dashboard.js';
import { waitFor } from '../support/http.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { viewSubmissionPayload } from '../support/slack-interactions.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let redis: RedisServer | undefined;
let app: TestApp | undefined;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterEach(async () => {
  await app?.stop();
  app = undefined;
  // Each test starts with nothing cached and no job: Redis starts empty for the next one.
  if (redis) {
    const client = await connectRedis(redis.url, logger, { failFast: true });
    await client.flushAll();
    await closeRedis(client);
  }
});
afterAll(async () => {
  await redis?.stop();
});

const logger = createLogger({ level: 'silent', secrets: [] });
/** An hourly analytics budget with room for a report but not for Home's background read of the week. */
const NO_FILL = { ANALYTICS_HOURLY_BUDGET: '10' };

for (const mode of ['memory', 'redis'] as const) {
  const env = (more: Record<string, string> = {}) => ({
    DOCS_SITE_URL: 'https://docs.acme.dev',
    ...(mode === 'redis' ? { REDIS_URL: redis!.url } : {}),
    ...more,
  });

  describe(`Home as a dashboard (${mode})`, () => {
    it('has [New job] [Views] [Health] on top; [Views] opens a loading modal, then the report in it', async () => {
      // 10 an hour: Home's background read of the week (while half is free) stays out of this test's counts.
      app = await startTestApp({ env: env(NO_FILL) });
      seed(app);
      const home = await openHome(app);
      expect(home).toMatch(/"action_id":"home_new_job".*"action_id":"home_views".*"action_id":"home_health"/);

      const { id, view } = await press(app, 'home_views');
      expect(json(view)).toContain("Reading this week's page views…");
      const report = await updated(app, id);
      expect(report).toContain('Page views · Last 7 days');
      expect(report).toContain('views*'); // the headline sentence
      expect(report).toContain('/docs-views'); // the next step: CSV and weekly posts from a channel
      expect(app.slack.surfaces.refusals).toEqual([]);

      // Post to channel: the same report, posted in the channel picked, with no new analytics read.
      const calls = analyticsRequests(app).length;
      const submitted = await app.interaction(
        viewSubmissionPayload({
          userId: USER,
          view: app.slack.surfaces.modals.get(id)!.view,
          values: {
            home_post_channel: { channel: { type: 'conversations_select', selected_conversation: 'C0DOCS' } },
          },
        }),
      );
      expect(submitted.body).toBe('');
      const posted = await waitFor(
        () => app!.slack.callsOf('chat.postMessage').find((c) => c.args.channel === 'C0DOCS'),
        { what: 'the report posted in the channel' },
      );
      expect(json(posted.args)).toContain('Page views');
      expect(analyticsRequests(app)).toHaveLength(calls);
    }, 30_000);

    it('[Health] shows a platform failure in the modal in words, with what to do', async () => {
      // 10 an hour: Home's background read of the week (while half is free) stays out of this test's counts.
      app = await startTestApp({ env: env(NO_FILL) });
      seed(app);
      await openHome(app);
      app.docs.inject({ path: '/v1/analytics' }, { kind: 'status', status: 500 }, 10);
      const { id, view } = await press(app, 'home_health');
      expect(json(view)).toContain('Reading where readers got stuck this week…');
      const failure = await updated(app, id);
      expect(failure).toContain('The docs platform failed or did not answer in time');
      expect(failure).toContain('Try again in a few minutes');
      expect(failure).not.toMatch(/\b500\b/);
    }, 30_000);

    it('"This week" shows the top gap from the cache; [Fix] opens the fix form; a gap being fixed shows its job', async () => {
      app = await startTestApp({ env: env() });
      seed(app);
      // What /docs-views and /docs-health read is cached; Home reads only that.
      await app.command({ command: '/docs-views', text: '' });
      await app.command({ command: '/docs-health', text: '' });
      await waitFor(() => app!.slack.responses.length >= 2 || undefined, { what: 'both reports answered' });
      const calls = analyticsRequests(app).length;
      const home = await openHome(app);
      expect(home).toContain('This week in your docs');
      expect(home).toContain('in the last 7 days');
      expect(home).toMatch(/searches\* with no useful result/);
      expect(analyticsRequests(app)).toHaveLength(calls);

      const form = await press(app, 'home_health_fix', fixValue(home));
      expect(form.view.callback_id).toBe('health_fix_submit');
      expect(json(form.view)).toContain('conversations_select');
      const submit = (channel: string | null) =>
        app!.interaction(
          viewSubmissionPayload({
            userId: USER,
            view: form.view,
            values: {
              health_instruction: { instruction: { type: 'plain_text_input', value: 'Answer this search' } },
              health_channel: { channel: { type: 'conversations_select', selected_conversation: channel } },
            },
          }),
        );
      expect(JSON.parse((await submit(null)).body)).toEqual({
        response_action: 'errors',
        errors: { health_channel: "Pick the channel where the job's card should go." },
      });
      expect((await submit('C0DOCS')).body).toBe('');
      const job = await waitFor(() => [...app!.docs.jobs.values()][0], { what: 'fix job created' });
      expect(job.prompts[0]).toContain('Answer this search');
      await waitFor(
        () => app!.slack.callsOf('chat.postMessage').some((c) => c.args.channel === 'C0DOCS') || undefined,
        { what: 'the job card in the picked channel' },
      );

      const again = await openHome(app);
      expect(again).toContain('🛠 Being fixed');
      expect(again).not.toContain('home_health_fix');
      // A Fix pressed on an older Home is refused, naming the job's thread.
      const refused = await press(app, 'home_health_fix', fixValue(home));
      expect(json(refused.view)).toContain("I didn't start a second fix");
      expect(analyticsRequests(app)).toHaveLength(calls);
    }, 40_000);

    it("reads the week before from a chart's cached days when the report read no totals of it", async () => {
      // With charts the report's comparison is the sum of the chart's days: no totals read of the week before.
      app = await startTestApp({ env: env({ REPORT_CHARTS: 'true' }) });
      seed(app);
      await app.command({ command: '/docs-views', text: '' });
      await waitFor(() => app!.slack.responses[0], { what: 'the report' });
      const calls = analyticsRequests(app).length;
      const home = await openHome(app);
      expect(home).toMatch(/in the last 7 days, (▲|▼|no change)[^:]*on the week before/);
      // Health was not read: never "no gaps", but how to get it.
      expect(home).toContain('Where readers got stuck is not read yet: press *Health* above.');
      expect(home).not.toContain('no gaps to fix');
      expect(analyticsRequests(app)).toHaveLength(calls);
    }, 30_000);

    it('with nothing cached and no budget to spare, opening Home makes no analytics call', async () => {
      // Half kept for people's commands leaves less than a fill needs.
      app = await startTestApp({ env: env(NO_FILL) });
      seed(app);
      const home = await openHome(app);
      expect(home).toContain("Nothing read yet this week. Press *Health* above for this week's report.");
      expect(home).not.toContain('reading this week');
      await openHome(app);
      expect(analyticsRequests(app)).toHaveLength(0);
    }, 30_000);

    it('with nothing cached and budget to spare, one background fill makes the next open show the week', async () => {
      app = await startTestApp({ env: env() });
      seed(app);
      const first = await openHome(app);
      expect(first).toContain("I'm reading this week's numbers now");
      // The two totals and the health window's four endpoints, then nothing more.
      await waitFor(() => analyticsRequests(app!).length >= 6 || undefined, { what: 'the background fill' });
      const second = await waitFor(
        async () => {
          const home = await openHome(app!);
          return home.includes('in the last 7 days') && home.includes('Top gap') ? home : undefined;
        },
        { what: 'Home showing the filled week' },
      );
      expect(second).toContain('home_health_fix');
      const calls = analyticsRequests(app).length;
      await openHome(app);
      expect(analyticsRequests(app)).toHaveLength(calls);
    }, 30_000);
  });
}
