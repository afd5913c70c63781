import { describe, expect, it } from 'vitest';
import {
  CHANNEL_ACTION,
  CHANNEL_BLOCK,
  CONTEXT_ACTION,
  CONTEXT_BLOCK,
  decodeRefs,
  INSTRUCTION_ACTION,
  INSTRUCTION_BLOCK,
  JOB_MODAL_CALLBACK_ID,
  jobModalView,
  parseJobSubmission,
} from '../../src/slack/messages/job-modal.js';
import { checkView } from '../support/fake-slack-surfaces.js';
import { viewSubmissionPayload } from '../support/slack-interactions.js';

const refs = {
  origin: 'message_shortcut' as const,
  channelId: 'C0DOCS',
  threadTs: '1.000100',
  messageTs: '2.000200',
};
const HOSTILE = '<!channel> <@U0EVIL> *bold* `code` <https://evil.example|click> &amp; 😀'.repeat(80);

function submitted(view: ReturnType<typeof jobModalView>, instruction: string | null, include = false) {
  const payload = viewSubmissionPayload({
    view: view as unknown as Record<string, unknown>,
    values: {
      [INSTRUCTION_BLOCK]: { [INSTRUCTION_ACTION]: { type: 'plain_text_input', value: instruction } },
      [CONTEXT_BLOCK]: {
        [CONTEXT_ACTION]: {
          type: 'checkboxes',
          selected_options: include ? [{ text: { type: 'plain_text', text: 'x' }, value: 'include' }] : [],
        },
      },
    },
  });
  return payload.view as Parameters<typeof parseJobSubmission>[0];
}

describe('jobModalView', () => {
  it('prefills the instruction whole up to 3000 characters, without a warning', () => {
    const text = 'a'.repeat(3000);
    const view = jobModalView({ refs, instruction: text });
    expect(checkView(view, 'modal')).toEqual({ ok: true });
    expect(JSON.stringify(view)).toContain(`"initial_value":"${text}"`);
    expect(JSON.stringify(view)).not.toContain(':warning:');
  });

  it('cuts a longer message to 3000 characters (not splitting emoji) and says so', () => {
    const view = jobModalView({ refs, instruction: HOSTILE });
    expect(checkView(view, 'modal')).toEqual({ ok: true });
    const input = view.blocks[0] as { element: { initial_value: string } };
    expect(Array.from(input.element.initial_value)).toHaveLength(3000);
    expect(JSON.stringify(view.blocks[1])).toContain(
      `The message was ${Array.from(HOSTILE).length.toLocaleString('en-US')} characters`,
    );
  });

  it('offers earlier thread messages as optional context with a bounded, literal preview', () => {
    const earlier = Array.from({ length: 40 }, (_, i) => ({ author: `user${i}`, text: `${i} ${HOSTILE}` }));
    const view = jobModalView({ refs, instruction: 'x', earlierMessages: earlier });
    expect(checkView(view, 'modal')).toEqual({ ok: true });
    const preview = JSON.stringify(view.blocks.at(-1));
    expect(preview).toContain("the agent gets the thread's last 40 messages in full");
    expect(preview).toContain('Below: the last 5, each cut at 200 characters');
    expect(preview).toContain('user39');
    expect(preview).not.toContain('user34*');
    expect(preview).not.toContain('<!channel>');
    expect(
      view.blocks.some(
        (b) =>
          b.type === 'input' &&
          b.block_id === CONTEXT_BLOCK &&
          (b as { optional?: boolean }).optional === true,
      ),
    ).toBe(true);
  });

  it('has no context choice when there is no earlier message, and opens empty for New job, with a channel picker', () => {
    const view = jobModalView({ refs: { origin: 'home' } });
    expect(checkView(view, 'modal')).toEqual({ ok: true });
    expect(view.blocks.map((b) => b.block_id)).toEqual([CHANNEL_BLOCK, INSTRUCTION_BLOCK]);
    expect(view.blocks[0]).toMatchObject({
      type: 'input',
      element: { type: 'conversations_select', action_id: CHANNEL_ACTION },
    });
    expect(view.title.text).toBe('New docs agent job');
    expect(JSON.stringify(view)).not.toContain('initial_value');
  });

  it('carries only refs in private_metadata, and reads them back', () => {
    const view = jobModalView({
      refs,
      instruction: HOSTILE,
    });
    expect(view.private_metadata).toBe('{"o":"message_shortcut","c":"C0DOCS","t":"1.000100","m":"2.000200"}');
    expect(decodeRefs(view.private_metadata)).toEqual(refs);
    expect(decodeRefs('{"o":"health_gap","c":"C0DOCS"}')).toBeUndefined();
    expect(decodeRefs('{"o":"home","c":"<script>"}')).toBeUndefined();
    expect(decodeRefs('{"o":"elsewhere"}')).toBeUndefined();
    expect(decodeRefs('not json')).toBeUndefined();
  });
});

describe('parseJobSubmission', () => {
  const view = jobModalView({ refs, instruction: 'x', earlierMessages: [{ author: 'bob', text: 'hi' }] });

  it('reads the instruction, the context choice and the refs', () => {
    expect(parseJobSubmission(submitted(view, '  Document the flag  ', true))).toEqual({
      ok: true,
      submission: { instruction: 'Document the flag', includeContext: true, refs },
    });
    const without = parseJobSubmission(submitted(view, 'Document it'));
    expect(without.ok && without.submission.includeContext).toBe(false);
  });

  it.each([
    [null, 'Write what the docs agent should do.'],
    [' \u200B\n ', 'Write what the docs agent should do.'],
    ['y'.repeat(3001), 'Keep it under 3,000 characters.'],
  ])('answers errors under the instruction for %j', (value, message) => {
    expect(parseJobSubmission(submitted(view, value))).toEqual({
      ok: false,
      response: { response_action: 'errors', errors: { [INSTRUCTION_BLOCK]: message } },
    });
  });

  it('reads the picked channel of a New job form, or asks for one under the picker', () => {
    const home = jobModalView({ refs: { origin: 'home' } });
    const withChannel = (channel: string | null) => {
      const payload = viewSubmissionPayload({
        view: home as unknown as Record<string, unknown>,
        values: {
          [INSTRUCTION_BLOCK]: { [INSTRUCTION_ACTION]: { type: 'plain_text_input', value: 'Do it' } },
          [CHANNEL_BLOCK]: {
            [CHANNEL_ACTION]: { type: 'conversations_select', selected_conversation: channel },
          },
        },
      });
      return parseJobSubmission(payload.view as Parameters<typeof parseJobSubmission>[0]);
    };
    expect(withChannel('C0DOCS')).toEqual({
      ok: true,
      submission: {
        instruction: 'Do it',
        includeContext: false,
        refs: { origin: 'home', channelId: 'C0DOCS' },
      },
    });
    for (const bad of [null, 'D0ALICE', '<#C1>'])
      expect(withChannel(bad)).toEqual({
        ok: false,
        response: {
          response_action: 'errors',
          errors: { [CHANNEL_BLOCK]: "Pick the channel where the job's card should go." },
        },
      });
  });

  it('refuses a view that is not the job modal or lost its refs', () => {
    const other = { ...submitted(view, 'x'), callback_id: 'something_else' };
    expect(parseJobSubmission(other)).toMatchObject({ ok: false, code: 'invalid_job_modal' });
    const tampered = { ...submitted(view, 'x'), callback_id: JOB_MODAL_CALLBACK_ID, private_metadata: '{}' };
    expect(parseJobSubmission(tampered)).toMatchObject({ ok: false, code: 'invalid_job_modal' });
  });
});

describe('a message holding a credential (issue 44)', () => {
  it('is offered in the form without it, and its preview too', () => {
    const key = 'svc_live_0123456789abcdefgh';
    const view = jobModalView({
      instruction: `Document the key page; mine is ${key}`,
      refs: { origin: 'message_shortcut', channelId: 'C0DOCS', threadTs: '1.000100', messageTs: '1.000200' },
      earlierMessages: [{ author: 'Bob', text: `try ${key}` }],
    } as Parameters<typeof jobModalView>[0]);
    const shown = JSON.stringify(view);
    expect(shown).not.toContain(key.slice(4));
    expect(shown).toContain('mine is [redacted]');
  });
});
