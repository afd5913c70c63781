import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readsAsInstruction, replyIntent } from '../../../src/jobs/domain/reply-intent.js';
import { replayable } from '../../support/property-seed.js';

const BOT = 'U0DOCSBOT';

/** Acknowledgements people actually write, one to three words. */
const ACK_PHRASES = [
  'thanks',
  'thank you',
  'thank you so much',
  'thx',
  'ty',
  'tysm',
  'cheers',
  'lgtm',
  'ok',
  'okay',
  'great',
  'nice',
  'cool',
  'awesome',
  'perfect',
  'nice one',
  'looks good',
  'looks good to me',
  'sounds good',
  'great work',
  'good job',
  'well done',
  'got it',
  'yes',
  'yep',
  'thanksss',
  'coooool',
  'hahaha',
  '+1',
  ':)',
  '<3',
  '&lt;3',
];
const EMOJI = ['👍', '👍🏽', '🎉', '🙏', '❤️', '🚀', '👩‍💻', '🇫🇷', '✅', '🙌🏿', '💯'];
const SHORTCODES = [':tada:', ':+1:', ':+1::skin-tone-2:', ':raised_hands:', ':white_check_mark:', ':100:'];
const PUNCTUATION = ['!', '!!', '.', '...', ',', '?!', ' -', '~', ')'];
/** Whitespace, some with invisible or direction characters beside it (dropped before reading). */
const SPACE = [' ', '  ', '\t', '\n', '\u00a0', ' \u200b', '\u2066 ', '\u202e\n'];

const randomCase = (text: string) =>
  fc
    .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
    .map((upper) => [...text].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''));

/** An acknowledgement phrase with its case mixed and punctuation or emoji after it, or an emoji alone. */
const ackPart = fc.oneof(
  fc
    .tuple(
      fc.constantFrom(...ACK_PHRASES).chain(randomCase),
      fc.constantFrom('', ...PUNCTUATION),
      fc.constantFrom('', '', ...EMOJI, ...SHORTCODES),
    )
    .map(([phrase, punctuation, emoji]) => `${phrase}${punctuation}${emoji}`),
  fc.constantFrom(...EMOJI, ...SHORTCODES),
);

const acknowledgement = fc
  .tuple(
    fc.array(fc.tuple(ackPart, fc.constantFrom(...SPACE)), { minLength: 1, maxLength: 4 }),
    fc.constantFrom('', ...SPACE),
  )
  .map(([parts, lead]) => lead + parts.map(([part, space]) => part + space).join(''));

describe('replies that only acknowledge', () => {
  it('are never instructions, in any case, with punctuation, emoji and whitespace around', () => {
    fc.assert(
      fc.property(acknowledgement, (text) => {
        expect(replyIntent(text, BOT)).toBe('acknowledgement');
      }),
      replayable('acknowledgements are chatter', 500),
    );
  });

  it.each(['thanks!', 'LGTM 👍', ':tada:', 'nice one', 'Thanks <@U0ALICE>!', 'ok', 'OK.', '👍', ''])(
    '%j is an acknowledgement',
    (text) => {
      expect(replyIntent(text, BOT)).toBe('acknowledgement');
    },
  );
});

describe('replies that address someone else first', () => {
  it.each([
    '<@U0CAROL> can you review this before it merges?',
    '<@U0CAROL|carol>: thoughts?',
    '@carol can you review this before it merges?',
    '\u200b<@U0BOB> please add an example',
  ])('%j is for that person', (text) => {
    expect(replyIntent(text, BOT)).toBe('addresses_someone_else');
  });
});

describe('real instructions', () => {
  it.each([
    'also cover X for @alice',
    'ok, now add a table',
    'thanks, and please also fix the typo in the intro',
    `<@${BOT}> thanks`,
    `<@${BOT}|docs-agent> :tada:`,
    `<@U0CAROL> <@${BOT}> add a table`,
    'please also add an example',
    'ok fix it',
    'Add a curl example too',
    'great, but rename the page',
    'no, keep the old title',
    'make it shorter',
    'nice one, and add the 429 section',
    'looks good but the table is wrong',
    'why is the intro gone?',
    `thanks ${'a'.repeat(400)}`,
    `${'thanks '.repeat(60)}`,
  ])('%j reads as an instruction', (text) => {
    expect(replyIntent(text, BOT)).toBe('instruction');
    expect(readsAsInstruction(text, BOT)).toBe(true);
  });

  it('reads a long hostile reply in linear time', () => {
    const hostile = ':'.repeat(50_000) + 'a:'.repeat(50_000) + '<@'.repeat(50_000);
    const started = performance.now();
    expect(replyIntent(hostile, BOT)).toBe('instruction');
    expect(performance.now() - started).toBeLessThan(200);
  });
});
