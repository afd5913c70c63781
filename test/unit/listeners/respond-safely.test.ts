import { describe, expect, it } from 'vitest';
import type { Outbox } from '../../../src/delivery/ports.js';
import {
  respondSafely,
  STORE_AWAY_NOTE,
  withStoreAwayNote,
} from '../../../src/slack/listeners/respond-safely.js';
import type { SlackMessage } from '../../../src/slack/messages/types.js';
import { recordingOutbox } from '../../support/recording-outbox.js';
import { recordingLogger } from './fakes.js';

const report: SlackMessage = {
  text: 'Page views · Last 7 days',
  blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*Page views* · 6 total' } }],
};

function recordingRespond() {
  const answers: Array<Record<string, unknown>> = [];
  const respond = async (message: unknown) => {
    answers.push(message as Record<string, unknown>);
  };
  return { answers, respond: respond as never };
}

describe('an owed answer while the outbox store is away (issue 37)', () => {
  it('is sent directly with a word about the outage when it cannot be owed', async () => {
    const { answers, respond } = recordingRespond();
    const away = {
      deliver: async () => {
        throw new Error('The client is offline');
      },
    } as unknown as Outbox;
    const { logger, lines } = recordingLogger();
    await respondSafely(respond, report, logger, {
      owed: { outbox: away, url: 'https://hooks.slack.com/x' },
    });
    expect(answers).toHaveLength(1);
    expect(JSON.stringify(answers[0]?.blocks)).toContain('6 total');
    expect(JSON.stringify(answers[0]?.blocks)).toContain(STORE_AWAY_NOTE);
    expect(String(answers[0]?.text)).toContain(STORE_AWAY_NOTE);
    expect(lines.join('\n')).toContain('answering directly');
  });

  it('is owed through the outbox, not sent directly, while the store works', async () => {
    const { answers, respond } = recordingRespond();
    const { outbox, sent, settle } = recordingOutbox();
    const { logger } = recordingLogger();
    await respondSafely(respond, report, logger, { owed: { outbox, url: 'https://hooks.slack.com/x' } });
    await settle();
    expect(answers).toEqual([]);
    expect(sent).toHaveLength(1);
    expect(JSON.stringify(sent[0])).not.toContain(STORE_AWAY_NOTE);
  });

  it('keeps a full message within 50 blocks and the note within the text limit', () => {
    const full: SlackMessage = { text: 'x'.repeat(5_000), blocks: Array(50).fill(report.blocks[0]) };
    const noted = withStoreAwayNote(full) as SlackMessage;
    expect(noted.blocks).toHaveLength(50);
    expect(JSON.stringify(noted.blocks.at(-1))).toContain(STORE_AWAY_NOTE);
    expect(Array.from(noted.text).length).toBeLessThanOrEqual(3_000);
    expect(noted.text.endsWith(STORE_AWAY_NOTE)).toBe(true);
    expect(withStoreAwayNote({ text: 'No jobs.' })).toEqual({ text: `No jobs.\n\n${STORE_AWAY_NOTE}` });
  });
});
