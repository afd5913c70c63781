import { describe, expect, it } from 'vitest';
import { assistantQuestion } from '../../src/slack/assistant-questions.js';
import { confirmationCard } from '../../src/slack/messages/assistant-confirm.js';
import { blockTextLength, TOTAL_BLOCK_TEXT } from '../../src/slack/messages/limits.js';

describe('questions in an assistant thread', () => {
  it.each([
    ["What's our most-read page?", 'views'],
    ['which pages get the most traffic', 'views'],
    ['How many visitors did /api get last week?', 'views'],
    ['Where do readers get stuck?', 'health'],
    ['are there failing searches', 'health'],
    ['What can you do?', 'help'],
    ['How do I start a docs job?', 'help'],
    ['Does the quickstart explain rate limits?', 'other'],
    ['Can you document the 429 response?', 'other'],
    ['the intro is wrong?', 'other'],
  ] as const)('%j is a question about %s', (text, topic) => {
    expect(assistantQuestion(text)).toBe(topic);
  });

  it.each([
    'Add a Python example to the authentication guide',
    'Document the 429 response',
    'Rewrite the FAQ so that it answers: how do I log in?'.slice(0, 30),
    '',
  ])('%j is not a question', (text) => {
    expect(assistantQuestion(text)).toBeUndefined();
  });

  it('reads only the start of a long text, in linear time', () => {
    const started = performance.now();
    expect(assistantQuestion(`Document ${'views '.repeat(100_000)}?`)).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(200);
  });
});

describe('the confirmation card', () => {
  it('carries only the id in its buttons, and fits Slack whatever the instruction', () => {
    const id = '0f8fad5b-d9cb-469f-a165-70867728950e';
    const card = confirmationCard(id, `<!channel> ${'x'.repeat(50_000)}`, {
      projectId: 'proj_`a`',
      repository: 'https://github.com/acme/docs',
    });
    const json = JSON.stringify(card.blocks);
    const values = [...json.matchAll(/"value":"([^"]*)"/g)].map((m) => m[1]);
    expect(values).toEqual([id, id, id]);
    expect(json).toContain("docs project `proj_'a'`");
    expect(json).toContain('acme/docs');
    expect(blockTextLength(card.blocks)).toBeLessThanOrEqual(TOTAL_BLOCK_TEXT);
  });
});
