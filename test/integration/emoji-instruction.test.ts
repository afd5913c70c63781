import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PROMPT_CHARS } from '../../src/slack/messages/help.js';
import { RGI_EMOJI_SEQUENCES } from '../support/emoji-sequences.js';
import { waitFor } from '../support/http.js';
import { eventEnvelope, messageEvent } from '../support/slack-events.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Issue 37: an instruction full of emoji (ZWJ sequences, tag flags, keycaps, skin tones) reaches the agent
 * whole, and the limit is counted on that text: 4,000 characters arrive as 4,000, 4,001 are refused with
 * the limit named. Before, the joiners and tags were stripped, so 4,000 arrived shorter and 4,001 went in.
 */
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ env: { AGENT_JOBS_PER_HOUR: '1000' } });
});
afterAll(async () => {
  await t.stop();
});

/** An instruction of exactly `length` code points: words and every published sequence of the test list. */
function emojiInstruction(mark: string, length: number): string {
  let text = `Document ${mark}:`;
  for (let i = 0; ; i += 1) {
    const next = ` ${RGI_EMOJI_SEQUENCES[i % RGI_EMOJI_SEQUENCES.length]}`;
    if (Array.from(text + next).length > length) break;
    text += next;
  }
  return text + 'x'.repeat(length - Array.from(text).length);
}

const jobWith = (mark: string) =>
  waitFor(() => [...t.docs.jobs.values()].find((job) => job.prompts[0]?.includes(mark)), {
    what: `the job of ${mark}`,
  });

describe('an instruction full of emoji', () => {
  it('of 4,000 characters reaches the agent whole from /docs-agent', async () => {
    const text = emojiInstruction('cmd4000', MAX_PROMPT_CHARS);
    expect(Array.from(text).length).toBe(4000);
    expect(text).toContain('👩‍💻');
    expect(text).toContain('🏴󠁧󠁢󠁳󠁣󠁴󠁿');
    await t.command({ text });
    const job = await jobWith('cmd4000');
    expect(job.prompts[0]).toBe(text);
  });

  it('of 4,001 characters is refused by /docs-agent with the limit named', async () => {
    const text = emojiInstruction('cmd4001', MAX_PROMPT_CHARS + 1);
    const answer = await t.command({ text });
    expect(JSON.parse(answer.body).text).toContain('4,001 characters long; the limit is 4,000');
    // A later job proves the refused one is not merely late.
    await t.command({ text: 'Document after4001' });
    await jobWith('after4001');
    expect([...t.docs.jobs.values()].some((job) => job.prompts[0]?.includes('cmd4001'))).toBe(false);
  });

  it('of 4,000 characters reaches the agent whole from a DM; 4,001 are refused with the limit named', async () => {
    const whole = emojiInstruction('dm4000', MAX_PROMPT_CHARS);
    await t.event(eventEnvelope(messageEvent({ channel: 'D0ALICE', channel_type: 'im', text: whole })));
    expect((await jobWith('dm4000')).prompts[0]).toBe(whole);

    const over = emojiInstruction('dm4001', MAX_PROMPT_CHARS + 1);
    await t.event(eventEnvelope(messageEvent({ channel: 'D0ALICE', channel_type: 'im', text: over })));
    const told = await waitFor(
      () => t.slack.calls.find((c) => String(c.args.text).includes('4,001 characters long')),
      { what: 'the refusal' },
    );
    expect(String(told.args.text)).toContain('the limit is 4,000');
    expect([...t.docs.jobs.values()].some((job) => job.prompts[0]?.includes('dm4001'))).toBe(false);
  });
});
