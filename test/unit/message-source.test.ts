import { describe, expect, it } from 'vitest';
import {
  EmptySourceMessageError,
  jobFromMessage,
  reactionDedupeKey,
} from '../../src/slack/message-source.js';

describe('jobFromMessage', () => {
  it('converts Slack markup to plain text as follow-ups are', () => {
    const job = jobFromMessage(
      { ts: '1700000000.000100', text: 'Ask <@U0BOB> about <https://x.dev/a|the page> &amp; <#C0DOCS|docs>' },
      (id) => (id === 'U0BOB' ? 'bob' : undefined),
    );
    expect(job.instruction).toBe('Ask @bob about the page (https://x.dev/a) & #docs');
  });

  it('puts the card in the thread of a reply, else under the message itself', () => {
    expect(jobFromMessage({ ts: '2.000', thread_ts: '1.000', text: 'a reply' }).threadTs).toBe('1.000');
    expect(jobFromMessage({ ts: '1.000', text: 'a top-level message' }).threadTs).toBe('1.000');
    expect(jobFromMessage({ ts: '1.000', thread_ts: '1.000', text: 'a thread root' }).threadTs).toBe('1.000');
  });

  it('reads the blocks when the text is empty', () => {
    const job = jobFromMessage({
      ts: '1.000',
      text: '',
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: 'Release notes' } },
        {
          type: 'rich_text',
          elements: [
            {
              type: 'rich_text_section',
              elements: [
                { type: 'text', text: 'Document ' },
                { type: 'link', url: 'https://x.dev/flag', text: 'the flag' },
                { type: 'text', text: ' for ' },
                { type: 'user', user_id: 'U0BOB' },
              ],
            },
          ],
        },
      ],
    });
    expect(job.instruction).toBe('Release notes\nDocument the flag (https://x.dev/flag) for @U0BOB');
  });

  it('names attached files with their links, at most ten', () => {
    const files = Array.from({ length: 12 }, (_, i) => ({
      name: `f${i}.png`,
      permalink: `https://acme.slack.com/files/${i}`,
    }));
    const job = jobFromMessage({ ts: '1.000', text: 'see screenshots', files });
    expect(job.instruction).toContain(
      'see screenshots\n\nAttached files:\n- f0.png (https://acme.slack.com/files/0)',
    );
    expect(job.instruction).toContain('- f9.png');
    expect(job.instruction).not.toContain('f10.png');
    expect(job.instruction.endsWith('- and 2 more')).toBe(true);
  });

  it('refuses a message with nothing to send', () => {
    expect(() => jobFromMessage({ ts: '1.000', text: '  ' })).toThrow(EmptySourceMessageError);
    expect(() => jobFromMessage({ ts: '1.000', blocks: [{ type: 'divider' }] })).toThrow(
      expect.objectContaining({ code: 'empty_source_message' }),
    );
  });
});

describe('reactionDedupeKey', () => {
  it('is one key per message, whoever reacts and however often Slack delivers it', () => {
    expect(reactionDedupeKey('T0TEAM', 'C0DOCS', '1700000000.000100')).toBe(
      'dedupe:reaction:T0TEAM:C0DOCS:1700000000.000100',
    );
    expect(reactionDedupeKey('T0TEAM', 'C0DOCS', '1.1')).not.toBe(
      reactionDedupeKey('T0TEAM', 'C0OTHER', '1.1'),
    );
    expect(reactionDedupeKey(null, 'C0DOCS', '1.1')).toBe('dedupe:reaction:-:C0DOCS:1.1');
  });
});
