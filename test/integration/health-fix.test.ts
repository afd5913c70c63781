import { describe, expect, it } from 'vitest';
import { impactWindows } from '../../src/insights/health/impact.js';
import { appsOnRedis } from '../support/apps-on-redis.js';
import { makeFeedback, makeSearches } from '../support/fake-docs-health.js';
import { waitFor } from '../support/http.js';
import { ManualTimers } from '../support/manual-timers.js';
import { messageButtons } from '../support/message-buttons.js';
import { nextMessageTs } from '../support/slack-events.js';
import { blockActionsPayload, viewSubmissionPayload } from '../support/slack-interactions.js';
import type { TestApp } from '../support/test-app.js';

/*
 * Issue 14, "From a gap to a job": /docs-health → a fix button → the modal (views.open with the click's
 * trigger_id) → submission → a job whose card, in the report's channel, names the evidence → its PR in the
 * card's thread → (memory, manual timers) the "did it work?" post in that thread. Also "Post to channel"
 * and the refusals. Signed requests in, the fake Slack and fake docs platform out; Redis on a real server.
 */

const PR_DAY_NOON = Date.parse('2026-03-10T12:00:00Z');
const started = Date.now();
const clock = { now: () => PR_DAY_NOON + (Date.now() - started) };
const PR = 'https://github.com/acme/docs/pull/91';
const CHANNEL = 'C0DOCS';

type Json = Record<string, unknown>;
interface Button {
  action_id: string;
  value?: string;
}

const lab = appsOnRedis();

function seed(t: TestApp): void {
  t.docs.health.defaults = {
    searches: makeSearches(6),
    pages: [{ path: '/guides/auth', thumbsUp: 2, thumbsDown: 9, code: 0, total: 11 }],
    feedback: makeFeedback('/guides/auth', ['The token example is wrong']),
    conversations: [],
  };
}

/** Runs `/docs-health top 3` and resolves the ephemeral report's buttons. */
async function report(t: TestApp): Promise<Button[]> {
  const before = t.slack.responses.length;
  expect((await t.command({ command: '/docs-health', text: 'top 3', channel_id: CHANNEL })).status).toBe(200);
  const body = await waitFor(() => t.slack.responses[before]?.body, { what: 'the report' });
  expect(body.response_type).toBe('ephemeral');
  return messageButtons(body.blocks);
}

function click(t: TestApp, button: Button, options: { triggerId?: string; userId?: string } = {}) {
  const responseUrl = t.slack.responseUrl();
  const triggerId = options.triggerId ?? t.slack.surfaces.mintTriggerId(options.userId ?? 'U0ALICE');
  return t
    .interaction(
      blockActionsPayload({
        triggerId,
        ...(options.userId ? { userId: options.userId } : {}),
        action: { action_id: button.action_id, ...(button.value ? { value: button.value } : {}) },
        // The /docs-health report is ephemeral, as Slack says of the message a button is on.
        container: {
          type: 'message',
          channelId: CHANNEL,
          messageTs: nextMessageTs(),
          responseUrl,
          ephemeral: true,
        },
      }),
    )
    .then((response) => ({ response, responseUrl }));
}

function submit(t: TestApp, view: Json, instruction: string) {
  return t.interaction(
    viewSubmissionPayload({
      view,
      values: { health_instruction: { instruction: { type: 'plain_text_input', value: instruction } } },
    }),
  );
}

const responsesTo = (t: TestApp, url: string) =>
  t.slack.responses.filter((r) => url.endsWith(r.path)).map((r) => r.body);

describe.each([
  ['memory', false],
  ['Redis', true],
])('a /docs-health gap to a job (%s mode)', (_mode, useRedis) => {
  it('fix button → modal → job whose card names the evidence → PR in its thread', async () => {
    const timers = new ManualTimers(clock.now());
    const t = await lab.start({
      env: useRedis ? { REDIS_URL: lab.freshRedisUrl() } : {},
      agentOptions: { clock, ...(useRedis ? {} : { impactTimers: timers }) },
    });
    seed(t);
    const buttons = await report(t);
    const fix = buttons.find((b) => b.action_id === 'health_fix_page_1')!;
    expect(buttons.map((b) => b.action_id)).toContain('docs_health_post');

    expect((await click(t, fix)).response.status).toBe(200);
    const modal = await waitFor(() => [...t.slack.surfaces.modals.values()][0], { what: 'modal opened' });
    const opened = JSON.stringify(modal.view);
    expect(opened).toContain('/guides/auth');
    // The box holds a plain request with no reader text; the readers' words are attached at submit.
    expect(opened).toContain('Fix what makes readers flag the page quoted below (9 👎)');
    expect(opened).not.toContain('The token example is wrong');
    expect(opened).not.toContain('⟦reader input⟧');

    const closed = await submit(t, modal.view, 'Fix the token example on /guides/auth');
    expect(closed.body).toBe('');
    const job = await waitFor(() => [...t.docs.jobs.values()][0], { what: 'job created' });
    expect(job.prompts).toHaveLength(1);
    const [prompt] = job.prompts as [string];
    expect(prompt.startsWith('Fix the token example on /guides/auth\n\n')).toBe(true);
    expect(prompt).toContain('⟦reader input⟧ The token example is wrong ⟦end of reader input⟧');
    expect(prompt.match(/untrusted text typed by anonymous docs readers/g)).toHaveLength(1);
    const card = await waitFor(
      () =>
        t.slack.messages.find((m) => m.bot_id && !m.thread_ts && JSON.stringify(m.blocks).includes(job.id)),
      { what: 'card in the report channel' },
    );
    expect(card.channel).toBe(CHANNEL);
    expect(JSON.stringify(card.blocks)).toContain('From /docs-health');
    expect(JSON.stringify(card.blocks)).toContain('the page `/guides/auth` (9 👎)');

    t.docs.complete(job.id, PR);
    await waitFor(() => t.slack.threadReplies(CHANNEL, card.ts).find((m) => m.text.includes(PR)), {
      what: 'terminal reply with the PR',
    });
    // The record kept the evidence: the "did it work?" check is queued for this job.
    await waitFor(() => t.logs.some((l) => l.includes('impact check scheduled')), { what: 'impact check' });
    if (useRedis) return;
    const { dueAt } = impactWindows(clock.now(), 14);
    await timers.advanceTo(dueAt + 60_000);
    const impact = await waitFor(
      () => t.slack.threadReplies(CHANNEL, card.ts).find((m) => m.text.startsWith('Did it work?')),
      { what: 'the impact post in the job thread' },
    );
    expect(JSON.stringify(impact.blocks)).toContain('👎');
  });

  it('two people submitting Fix for the same gap at once start one job; the other is told privately', async () => {
    const t = await lab.start({
      env: useRedis ? { REDIS_URL: lab.freshRedisUrl() } : {},
      agentOptions: { clock },
    });
    seed(t);
    const fix = (await report(t)).find((b) => b.action_id === 'health_fix_page_1')!;
    await click(t, fix);
    const modal = await waitFor(() => [...t.slack.surfaces.modals.values()][0], { what: 'modal opened' });
    const bob = viewSubmissionPayload({
      userId: 'U0BOB',
      view: modal.view,
      values: { health_instruction: { instruction: { type: 'plain_text_input', value: 'Fix it' } } },
    });
    await Promise.all([submit(t, modal.view, 'Fix the token example'), t.interaction(bob)]);
    const refused = () =>
      t.slack.callsOf('chat.postEphemeral').filter((c) => String(c.args.text).includes('second fix'));
    const [told] = await waitFor(() => refused().at(0) && refused(), { what: 'the refusal' });
    expect(String(told!.args.text)).toContain(CHANNEL);
    // The winner's job: one, and no second one after the refusal (the sign the other was processed).
    const job = await waitFor(() => [...t.docs.jobs.values()][0], { what: 'the job' });
    await waitFor(() => t.slack.messages.find((m) => JSON.stringify(m.blocks).includes(job.id)), {
      what: 'its card',
    });
    expect(t.docs.jobs.size).toBe(1);
  });

  it('"Post to channel" posts the same report with its fix buttons and replaces the ephemeral copy', async () => {
    const t = await lab.start({
      env: useRedis ? { REDIS_URL: lab.freshRedisUrl() } : {},
      agentOptions: { clock },
    });
    seed(t);
    const buttons = await report(t);
    const calls = t.docs.requestsTo('GET', /\/v1\/analytics\//).length;
    const { responseUrl } = await click(t, buttons.find((b) => b.action_id === 'docs_health_post')!);
    const posted = await waitFor(
      () =>
        t.slack.messages.find((m) => m.bot_id && m.channel === CHANNEL && m.text.startsWith('Docs health')),
      { what: 'report in the channel' },
    );
    const blocks = JSON.stringify(posted.blocks);
    expect(blocks).toContain('health_fix_page_1');
    expect(blocks).not.toContain('docs_health_post');
    expect(blocks).toContain('Requested by <@U0ALICE>');
    const [done] = await waitFor(() => responsesTo(t, responseUrl).at(0) && responsesTo(t, responseUrl), {
      what: 'confirmation',
    });
    expect(done).toMatchObject({
      replace_original: true,
      text: 'Posted the docs-health report to the channel.',
    });
    // The same days from the cache: no new analytics call.
    expect(t.docs.requestsTo('GET', /\/v1\/analytics\//).length).toBe(calls);
  });
});

describe('a posted report: one job per thread', () => {
  it('the first fix of a posted report goes in its thread, a second row of the same report gets its own card', async () => {
    const t = await lab.start({ agentOptions: { clock } });
    seed(t);
    const buttons = await report(t);
    await click(t, buttons.find((b) => b.action_id === 'docs_health_post')!);
    const posted = await waitFor(
      () =>
        t.slack.messages.find((m) => m.bot_id && m.channel === CHANNEL && m.text.startsWith('Docs health')),
      { what: 'report in the channel' },
    );
    const rows = messageButtons(posted.blocks as never).filter((b) => b.action_id.startsWith('health_fix_'));
    expect(rows.length).toBeGreaterThanOrEqual(2);
    const fixRow = async (button: Button, instruction: string) => {
      const before = t.slack.surfaces.modals.size;
      await t.interaction(
        blockActionsPayload({
          triggerId: t.slack.surfaces.mintTriggerId('U0ALICE'),
          action: { action_id: button.action_id, ...(button.value ? { value: button.value } : {}) },
          container: {
            type: 'message',
            channelId: CHANNEL,
            messageTs: posted.ts,
            responseUrl: t.slack.responseUrl(),
          },
        }),
      );
      const modal = await waitFor(
        () => t.slack.surfaces.modals.size > before && [...t.slack.surfaces.modals.values()].at(-1),
        {
          what: 'the fix form',
        },
      );
      await submit(t, (modal as { view: Json }).view, instruction);
      const jobs = () =>
        [...t.docs.jobs.values()].filter((j) => (j.prompts as string[])[0]?.startsWith(instruction));
      const [job] = await waitFor(() => jobs().at(0) && jobs(), { what: `the job for ${instruction}` });
      return waitFor(
        () => t.slack.messages.find((m) => m.bot_id && JSON.stringify(m.blocks).includes(job!.id)),
        { what: `the card of ${instruction}` },
      );
    };
    const first = await fixRow(rows[0]!, 'Fix the first gap');
    expect(first.thread_ts).toBe(posted.ts);
    const second = await fixRow(rows[1]!, 'Fix the second gap');
    expect(second.thread_ts).toBeUndefined();
  });
});

describe('a /docs-health gap to a job: refusals', () => {
  it('an expired trigger tells the user to click again; an empty instruction keeps the modal open', async () => {
    const t = await lab.start({ agentOptions: { clock } });
    seed(t);
    const fix = (await report(t)).find((b) => b.action_id === 'health_fix_search_1')!;
    const { responseUrl } = await click(t, fix, { triggerId: '12345.98765.expired' });
    const [told] = await waitFor(() => responsesTo(t, responseUrl).at(0) && responsesTo(t, responseUrl), {
      what: 'answer',
    });
    expect(String(told!.text)).toContain('Click the button again');
    expect(t.slack.surfaces.modals.size).toBe(0);

    await click(t, fix);
    const modal = await waitFor(() => [...t.slack.surfaces.modals.values()][0], { what: 'modal opened' });
    expect(JSON.stringify(modal.view)).toContain('nothing clicked');
    const refused = await submit(t, modal.view, '  \u200b ');
    expect(JSON.parse(refused.body)).toEqual({
      response_action: 'errors',
      errors: { health_instruction: 'Write what the docs agent should do.' },
    });
    expect(t.docs.jobs.size).toBe(0);
  });

  it('someone not allowed gets no modal, and a tampered button value is refused', async () => {
    const t = await lab.start({ env: { ALLOWED_USER_IDS: 'U0ALICE' }, agentOptions: { clock } });
    seed(t);
    const fix = (await report(t)).find((b) => b.action_id === 'health_fix_page_1')!;
    const denied = await click(t, fix, { userId: 'U0MALLORY' });
    const [told] = await waitFor(
      () => responsesTo(t, denied.responseUrl).at(0) && responsesTo(t, denied.responseUrl),
      { what: 'refusal' },
    );
    expect(String(told!.text)).toMatch(/not allowed|can't|cannot/i);
    const tampered = await click(t, { action_id: 'health_fix_page_1', value: '{"kind":"page"}' });
    const [broken] = await waitFor(
      () => responsesTo(t, tampered.responseUrl).at(0) && responsesTo(t, tampered.responseUrl),
      { what: 'answer' },
    );
    expect(String(broken!.text)).toContain('Run `/docs-health` again');
    expect(t.slack.surfaces.modals.size).toBe(0);
    expect(t.docs.jobs.size).toBe(0);
  });
});
