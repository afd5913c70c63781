import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plainLine } from '../../src/slack/assistant-calls.js';
import { parseAssistantWords } from '../../src/slack/assistant-words.js';
import { assistantHelpMessage, myJobsMessage } from '../../src/slack/messages/assistant-replies.js';
import { anyHostileText, hostileText, liveMarkup } from '../support/hostile-text.js';

describe('words in an assistant thread', () => {
  it('reads the slash commands’ words, in their grammar', () => {
    expect(parseAssistantWords('help').kind).toBe('help');
    expect(parseAssistantWords('  LIST ').kind).toBe('list');
    expect(parseAssistantWords('status job_abc123')).toEqual({ kind: 'status', jobId: 'job_abc123' });
    expect(parseAssistantWords('status').kind).toBe('status_usage');
    expect(parseAssistantWords('health 30d top 10')).toMatchObject({
      kind: 'health',
      command: { kind: 'report', request: { top: 10 } },
    });
    expect(parseAssistantWords('views last-week /api')).toMatchObject({
      kind: 'views',
      command: { kind: 'report', params: { prefix: '/api' } },
    });
    expect(parseAssistantWords('views 12x')).toMatchObject({
      kind: 'views',
      command: { kind: 'invalid', token: '12x' },
    });
  });

  it('takes anything else as an instruction, sentences that start with a keyword included', () => {
    expect(parseAssistantWords('Document the 429 response').kind).toBe('instruction');
    expect(parseAssistantWords('list every page that mentions OAuth in the FAQ').kind).toBe('instruction');
    expect(parseAssistantWords('status codes: document 409 and 422 on the jobs API').kind).toBe(
      'instruction',
    );
    expect(parseAssistantWords('health of the quickstart page needs a Python example').kind).toBe(
      'instruction',
    );
    expect(parseAssistantWords(`health ${'7d '.repeat(200)}`).kind).toBe('instruction');
  });

  it('classifies any hostile text, pathological shapes included, without throwing', () => {
    fc.assert(
      fc.property(anyHostileText(), (text) => {
        // A backtracking regex on 40,000 characters would make this run take seconds (the test's timeout).
        const words = parseAssistantWords(text);
        expect(typeof words.kind).toBe('string');
      }),
      { numRuns: 60 },
    );
  });

  it('makes titles and steps from outside text that can never ping or link anyone', () => {
    fc.assert(
      fc.property(hostileText(), (text) => {
        const line = plainLine(text, 120);
        expect(Array.from(line).length).toBeLessThanOrEqual(120);
        expect(line).not.toMatch(/[<>\n]/);
      }),
    );
  });

  it('escapes a job’s prompt and id in `list`', () => {
    const message = myJobsMessage([
      {
        jobId: '<!channel>',
        status: 'active',
        prompt: '<@U123> hi <https://evil.example|x>',
        channelId: 'D0ALICE',
        threadTs: '1.2',
      } as never,
    ]);
    const text = (message.blocks[0] as { text: { text: string } }).text.text;
    // Only the bot's own thread link is live markup; the prompt's mention and link are shown as text.
    const live = liveMarkup(text).filter((m) => m.startsWith('<'));
    expect(live).toEqual(['<https://slack.com/archives/D0ALICE/p12|thread>']);
    expect(assistantHelpMessage().blocks.length).toBe(1);
  });
});
