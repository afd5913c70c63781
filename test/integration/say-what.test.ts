import { afterEach, describe, expect, it } from 'vitest';
import { FakeDocs } from '../support/fake-docs.js';
import { FAKE_GITHUB_TOKEN, FakeGitHub } from '../support/fake-github.js';
import { FakeSlack } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { eventEnvelope, messageEvent } from '../support/slack-events.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const apps: TestApp[] = [];
const fakes: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const app of apps.splice(0).reverse()) await app.stop();
  for (const fake of fakes.splice(0)) await fake.close();
});

const PR = 'https://github.com/acme/docs/pull/101';

async function start(env: Record<string, string> = {}) {
  const slack = await FakeSlack.start();
  const docs = await FakeDocs.start();
  const github = await FakeGitHub.start();
  fakes.push(slack, docs, github);
  const app = await startTestApp({
    slack,
    docs,
    env: {
      GITHUB_TOKEN: FAKE_GITHUB_TOKEN,
      GITHUB_API_URL: github.url,
      PR_FOLLOW_INTERVAL_MS: '40',
      PR_FOLLOW_MAX_INTERVAL_MS: '200',
      ...env,
    },
  });
  apps.push(app);
  return { app, github };
}

async function startJob(app: TestApp) {
  await app.command({ text: 'Fix the typo on the auth page', user_id: 'U1', channel_id: 'C0DOCS' });
  const job = await waitFor(() => (app.docs.jobs.size === 1 ? app.docs.onlyJob : undefined), { what: 'job' });
  const card = await waitFor(() => app.slack.messages.find((m) => !m.thread_ts && m.channel === 'C0DOCS'), {
    what: 'card',
  });
  await waitFor(() => JSON.stringify(app.slack.message(card.channel, card.ts)?.blocks).includes('Working'), {
    what: 'card tracked',
  });
  return { job, card };
}

const replyBlocks = (app: TestApp, channel: string, ts: string) =>
  app.slack
    .threadReplies(channel, ts)
    .filter((m) => m.bot_id)
    .map((m) => JSON.stringify(m.blocks));

describe('say what happened', () => {
  it('a job ending with a PR names it: #101 at once, then #101 · title and size once GitHub was read', async () => {
    const { app, github } = await start();
    github.addPull('acme', 'docs', 101, {
      title: 'Fix the typo <!channel> on the auth page',
      additions: 12,
      deletions: 4,
      changed_files: 2,
    });
    const { job, card } = await startJob(app);
    app.docs.complete(job.id, PR);
    const first = await waitFor(
      () => replyBlocks(app, card.channel, card.ts).find((b) => b.includes('pull request')),
      {
        what: 'terminal reply',
      },
    );
    expect(first).toContain(`<${PR}|#101>`);
    // People's view (the reply's words): no job id, no branch. The feedback buttons' values carry the id.
    const words = JSON.parse(first)[0].text.text as string;
    expect(words).not.toContain(job.id);
    expect(words).not.toContain('docs-agent/');

    // The PR is followed: once read, a follow-up's reply names it with its title and size.
    await waitFor(
      () => JSON.stringify(app.slack.message(card.channel, card.ts)?.blocks).includes('Pull request *open*'),
      {
        what: 'PR read',
      },
    );
    const sent = await app.event(
      eventEnvelope(
        messageEvent({ user: 'U1', channel: 'C0DOCS', thread_ts: card.ts, text: 'also fix the heading' }),
      ),
    );
    expect(sent.status).toBe(200);
    await waitFor(() => job.prompts.length === 2, { what: 'follow-up sent' });
    // A poll sees the new run going (a finish seen before that is distrusted for a while), then it ends.
    const polls = app.docs.requestsTo('GET', /\/job\//).length;
    await waitFor(() => app.docs.requestsTo('GET', /\/job\//).length >= polls + 2, {
      what: 'new run polled',
    });
    app.docs.complete(job.id, PR);
    const second = await waitFor(
      () => replyBlocks(app, card.channel, card.ts).find((b) => b.includes('finished the follow-up')),
      { what: 'follow-up reply' },
    );
    expect(second).toContain(`<${PR}|#101 · Fix the typo`);
    expect(second).toContain('(2 files, +12 −4)');
    expect(second).not.toContain('<!channel>');
  });

  it('a failed job’s card gives the cause in words and a Retry button', async () => {
    const { app } = await start();
    const { job, card } = await startJob(app);
    app.docs.fail(job.id);
    const blocks = await waitFor(
      () => {
        const text = JSON.stringify(app.slack.message(card.channel, card.ts)?.blocks);
        return text.includes('Failed: the agent') ? text : undefined;
      },
      { what: 'failed card' },
    );
    expect(blocks).toContain('Failed: the agent stopped with an error');
    expect(blocks).toContain('I could not get a reason from the docs platform');
    expect(blocks).toContain('"action_id":"job_retry"');
  });
});
