import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDocsAgentCommand } from '../../src/slack/command-text.js';
import { defuseLinks, MAX_SLACK_TEXT, slackToPlainText } from '../../src/slack/markup.js';
import { jobFromMessage } from '../../src/slack/message-source.js';
import { HEALTH_MODAL_CALLBACK, parseHealthFixSubmission } from '../../src/slack/messages/health-modal.js';
import {
  encodeRefs,
  INSTRUCTION_ACTION,
  INSTRUCTION_BLOCK,
  JOB_MODAL_CALLBACK_ID,
  parseJobSubmission,
} from '../../src/slack/messages/job-modal.js';
import { anyHostileText, hasInvisible, INVISIBLE_CHARS, liveMarkup } from '../support/hostile-text.js';

const RUNS = { numRuns: 80 };
const hostile = anyHostileText(60_000);
const hostileName = fc.string({ maxLength: 40 }).map((s) => `${s}\u202e${s}\u200b`);

/** Every Slack-sourced text reaches the agent without invisible or bidi characters (issue 27, hole 2). */
describe('Slack-sourced text as the agent receives it', () => {
  it('slackToPlainText: no invisible characters, names included, capped at Slack’s message size', () => {
    fc.assert(
      fc.property(hostile, hostileName, (text, name) => {
        const plain = slackToPlainText(`${text} <@U1234567>`, () => name);
        expect(hasInvisible(plain)).toBe(false);
      }),
      RUNS,
    );
  });

  it('text past Slack’s message size is cut before markup is converted', () => {
    const plain = slackToPlainText(`${'a'.repeat(MAX_SLACK_TEXT)}<@U1234567>`, () => 'never');
    expect(plain).toBe('a'.repeat(MAX_SLACK_TEXT));
  });

  it('a reviewed message (bots, apps, outsiders) and a command: what is shown is what is sent', () => {
    fc.assert(
      fc.property(hostile, (text) => {
        try {
          const job = jobFromMessage({ ts: '1.1', text, user: 'U1', bot_id: 'B1' });
          expect(hasInvisible(job.instruction)).toBe(false);
        } catch (error) {
          expect((error as { code?: string }).code).toBe('empty_source_message');
        }
        const parsed = parseDocsAgentCommand(text);
        if (parsed.kind === 'start') expect(hasInvisible(parsed.prompt)).toBe(false);
      }),
      RUNS,
    );
  });

  it('submitted forms (job form, Fix form): invisible characters out, over-long values refused', () => {
    const refs = encodeRefs({ origin: 'message_shortcut', channelId: 'C0123456789', threadTs: '1.2' });
    fc.assert(
      fc.property(hostile, (value) => {
        const job = parseJobSubmission({
          callback_id: JOB_MODAL_CALLBACK_ID,
          private_metadata: refs,
          state: { values: { [INSTRUCTION_BLOCK]: { [INSTRUCTION_ACTION]: { value } } } },
        });
        if (job.ok) {
          expect(hasInvisible(job.submission.instruction)).toBe(false);
          expect(Array.from(job.submission.instruction).length).toBeLessThanOrEqual(3000);
        }
        const fix = parseHealthFixSubmission({
          callback_id: HEALTH_MODAL_CALLBACK,
          private_metadata: JSON.stringify({ channelId: 'C0123456789', evidenceId: 'ev_0123456789abcdef' }),
          state: { values: { health_instruction: { instruction: { value } } } },
        });
        if (fix.ok) expect(hasInvisible(fix.instruction)).toBe(false);
      }),
      RUNS,
    );
  });

  it('a form of only invisible characters is "write something", not an empty job', () => {
    const refs = encodeRefs({ origin: 'message_shortcut', channelId: 'C0123456789', threadTs: '1.2' });
    const parsed = parseJobSubmission({
      callback_id: JOB_MODAL_CALLBACK_ID,
      private_metadata: refs,
      state: {
        values: { [INSTRUCTION_BLOCK]: { [INSTRUCTION_ACTION]: { value: INVISIBLE_CHARS.join(' ') } } },
      },
    });
    expect(parsed.ok).toBe(false);
  });
});

describe('defuseLinks', () => {
  it('defuses `www.` even when a truncation cut the domain off (found by the card property, seed -1894935798)', () => {
    for (const text of ['ok www.…).', '(www.evil.example)', 'WWW.x', 'a www.'])
      expect(liveMarkup(defuseLinks(text))).toEqual([]);
  });
});
