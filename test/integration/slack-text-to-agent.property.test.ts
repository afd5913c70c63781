import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assistantMessage, assistantThreadStarted, startFromCard } from '../support/assistant-events.js';
import { hasInvisible, hostileText, INVISIBLE_CHARS } from '../support/hostile-text.js';
import { waitFor } from '../support/http.js';
import { eventEnvelope, messageEvent, nextMessageTs } from '../support/slack-events.js';
import {
  messageActionPayload,
  reactionAddedEnvelope,
  viewSubmissionPayload,
} from '../support/slack-interactions.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Issue 27: "for any Slack-sourced text, what reaches the agent has no invisible characters", proved where
 * it counts: the prompt the docs platform received (the fake records it), for every Slack source that
 * becomes a prompt: a mention naming people (their names looked up), a DM, a reacted message, the message
 * shortcut with its thread's context and the form's instruction, and a message in the assistant container.
 * Names are hostile too (display names with bidi and zero-width characters).
 */
const RUNS = { numRuns: 15 };
const hostileName = fc
  .tuple(
    fc.string({ maxLength: 12 }),
    fc.constantFrom(...INVISIBLE_CHARS),
    fc.constantFrom(...INVISIBLE_CHARS),
  )
  .map(([s, a, b]) => `${a}Mal${s}${b}lory${a}`);

let t: TestApp;
let marker = 0;

beforeAll(async () => {
  t = await startTestApp({ env: { AGENT_JOBS_PER_HOUR: '1000000', LOG_LEVEL: 'info' } });
});
afterAll(async () => {
  await t.stop();
});

/** The prompt of the job whose prompt carries `mark` (each run has its own). */
const promptWith = (mark: string) =>
  waitFor(() => [...t.docs.jobs.values()].find((job) => job.prompts[0]?.includes(mark))?.prompts[0], {
    what: `a job carrying ${mark}`,
  });

/** Runs `send` for hostile text and a hostile name; the prompt that reached the platform has none of it. */
async function expectCleanPrompts(send: (text: string, mark: string, named: string) => Promise<unknown>) {
  await fc.assert(
    fc.asyncProperty(hostileText(), hostileName, async (text, name) => {
      const mark = `mk${++marker}x`;
      // A new person each run: names are cached per user for an hour.
      const named = `U0NAMED${marker}`;
      t.slack.users.set(named, { name, display_name: name });
      await send(text, mark, named);
      const prompt = await promptWith(mark);
      expect(hasInvisible(prompt), JSON.stringify(prompt)).toBe(false);
    }),
    RUNS,
  );
}

describe('Slack-sourced text, as the docs platform receives it in the job prompt', () => {
  it('a mention naming people', async () => {
    await expectCleanPrompts((text, mark, named) =>
      t.event(
        eventEnvelope(
          messageEvent({
            type: 'app_mention',
            text: `<@U0DOCSBOT> ${mark} Document ${text} for <@${named}>`,
          }),
        ),
      ),
    );
  });

  it('a DM', async () => {
    await expectCleanPrompts((text, mark, named) =>
      t.event(
        eventEnvelope(
          messageEvent({ channel: 'D0ALICE', channel_type: 'im', text: `${mark} ${text} <@${named}>` }),
        ),
      ),
    );
  });

  it('a reacted message, written by someone with a hostile name', async () => {
    await expectCleanPrompts(async (text, mark, named) => {
      const ts = nextMessageTs();
      t.slack.messages.push({ channel: 'C0DOCS', ts, text: `${mark} ${text} <@${named}>`, user: named });
      await t.event(reactionAddedEnvelope({ ts, userId: 'U0ALICE' }));
    });
  });

  it('the message shortcut: the message, its thread (hostile names) and the instruction typed', async () => {
    await expectCleanPrompts(async (text, mark, named) => {
      const root = nextMessageTs();
      t.slack.messages.push({ channel: 'C0DOCS', ts: root, text: `${text} <@${named}>`, user: named });
      const ts = nextMessageTs();
      const message = { text: `${text} ${mark}`, ts, thread_ts: root, user: named };
      t.slack.messages.push({ channel: 'C0DOCS', ...message });
      const triggerId = t.slack.surfaces.mintTriggerId('U0ALICE');
      await t.interaction(messageActionPayload({ triggerId, responseUrl: t.slack.responseUrl(), message }));
      const modal = await waitFor(
        () => [...t.slack.surfaces.modals.values()].find((m) => JSON.stringify(m.view).includes(mark)),
        { what: 'the prefilled form' },
      );
      const include = [{ text: { type: 'plain_text', text: 'Include' }, value: 'include' }];
      await t.interaction(
        viewSubmissionPayload({
          view: modal.view,
          values: {
            instruction: {
              instruction_input: { type: 'plain_text_input', value: `${mark} ${text}\u202eevil` },
            },
            thread_context: { include_context: { type: 'checkboxes', selected_options: include } },
          },
        }),
      );
    });
  });

  it('a message in the assistant container', async () => {
    await expectCleanPrompts(async (text, mark, named) => {
      const threadTs = nextMessageTs();
      await t.event(eventEnvelope(assistantThreadStarted({ threadTs })));
      await waitFor(() => t.slack.assistant.prompts.find((p) => p.threadTs === threadTs), {
        what: 'prompts',
      });
      await t.event(
        eventEnvelope(assistantMessage({ threadTs, text: `${mark} Document ${text} <@${named}>` })),
      );
      await startFromCard(t, t.slack, threadTs);
    });
  });
});
