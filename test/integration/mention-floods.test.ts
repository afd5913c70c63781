import { afterEach, describe, expect, it } from 'vitest';
import { boot, send, stopConversationApp } from '../support/conversation-helpers.js';
import { waitFor } from '../support/http.js';
import { messageEvent } from '../support/slack-events.js';

afterEach(stopConversationApp);

const id = (i: number) => `U${String(i).padStart(8, '0')}`;
const dm = (text: string) => messageEvent({ channel: 'D0ALICE', channel_type: 'im', text });

describe('mention floods', () => {
  it('refuses a DM naming 3,000 people by its length before looking up a single name', async () => {
    const t = await boot();
    const text = Array.from({ length: 3000 }, (_, i) => `<@${id(i)}>`).join(' ');
    await send(t, dm(text));
    const told = await waitFor(
      () => t.slack.calls.find((c) => String(c.args.text).includes('characters long')),
      { what: `too long answer (${t.slack.calls.map((c) => c.method).join()})` },
    );
    expect(String(told.args.text)).toContain('4,000');
    expect(t.slack.callsOf('users.info')).toHaveLength(0);
    expect(t.docs.jobs.size).toBe(0);
  });

  it('resolves at most 25 names of a message; the other mentions reach the agent as ids', async () => {
    const t = await boot();
    for (let i = 0; i < 60; i++) t.slack.users.set(id(i), { name: `person${i}` });
    const mentions = Array.from({ length: 60 }, (_, i) => `<@${id(i)}>`).join(' ');
    await send(t, dm(`Thank these reviewers in the changelog: ${mentions}`));
    const job = await waitFor(() => [...t.docs.jobs.values()][0], { what: 'job started' });
    expect(t.slack.callsOf('users.info').length).toBeLessThanOrEqual(25);
    const prompt = job.prompts[0]!;
    expect(prompt).toContain('@person0 ');
    expect(prompt).toContain('@person24 ');
    expect(prompt).not.toContain('@person25');
    expect(prompt).toContain(`@${id(59)}`);
  });
});
