import { afterEach, describe, expect, it } from 'vitest';
import { assistantMessage, assistantThreadStarted, startFromCard } from '../support/assistant-events.js';
import { waitFor } from '../support/http.js';
import { eventEnvelope, nextMessageTs } from '../support/slack-events.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/*
 * Issue 27, hole 1: the channel open beside the assistant container picks the docs project of reports and
 * jobs, so it is authorised like Home's New job: the allowlists and the user's (and the bot's) membership.
 */

const SECRET_CHANNEL = 'C0SECRET';
let app: TestApp | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function threadBeside(t: TestApp, contextChannel: string): Promise<string> {
  const threadTs = nextMessageTs();
  await t.event(eventEnvelope(assistantThreadStarted({ threadTs, contextChannel })));
  await waitFor(() => t.slack.assistant.prompts.find((p) => p.threadTs === threadTs), { what: 'prompts' });
  return threadTs;
}

const answersIn = (t: TestApp, threadTs: string) =>
  t.slack.messages.filter((m) => m.thread_ts === threadTs && m.bot_id).map((m) => String(m.text ?? ''));

describe('the channel open beside the assistant', () => {
  it('is refused, with what to do, when the user is not in it: no report, no job on its project', async () => {
    const t = await startTestApp({ env: { DOCS_CHANNEL_PROJECTS: `${SECRET_CHANNEL}=proj_secret` } });
    app = t;
    t.docs.projects.add('proj_secret');
    t.slack.members.people.set(SECRET_CHANNEL, ['U0BOB']);
    const threadTs = await threadBeside(t, SECRET_CHANNEL);
    await t.event(eventEnvelope(assistantMessage({ threadTs, text: 'health 30d' })));
    await t.event(eventEnvelope(assistantMessage({ threadTs, text: 'Delete the pricing page' })));
    await waitFor(() => (answersIn(t, threadTs).length >= 2 ? true : undefined), { what: 'two refusals' });
    await sleep(300);
    for (const text of answersIn(t, threadTs)) expect(text).toContain("You're not a member of <#C0SECRET>");
    expect(t.docs.requestsTo('GET', /proj_secret/)).toHaveLength(0);
    expect(t.docs.jobs.size).toBe(0);
    // Checked once for both messages (cached per channel and person).
    expect(t.slack.callsOf('conversations.members')).toHaveLength(1);
  });

  it('is refused when outside ALLOWED_CHANNEL_IDS, and used when the user may', async () => {
    const t = await startTestApp({
      env: {
        DOCS_CHANNEL_PROJECTS: `${SECRET_CHANNEL}=proj_secret,C0OPEN=proj_open`,
        ALLOWED_CHANNEL_IDS: 'C0OPEN,D0ALICEAPP',
      },
    });
    app = t;
    t.docs.projects.add('proj_secret');
    t.docs.projects.add('proj_open');
    const refused = await threadBeside(t, SECRET_CHANNEL);
    await t.event(eventEnvelope(assistantMessage({ threadTs: refused, text: 'Rewrite the FAQ' })));
    await waitFor(() => answersIn(t, refused)[0], { what: 'refusal' });
    const allowed = await threadBeside(t, 'C0OPEN');
    await t.event(eventEnvelope(assistantMessage({ threadTs: allowed, text: 'Rewrite the FAQ' })));
    await startFromCard(t, t.slack, allowed);
    const job = await waitFor(() => (t.docs.jobs.size === 1 ? t.docs.onlyJob : undefined), { what: 'job' });
    expect(job.project).toBe('proj_open');
  });
});
