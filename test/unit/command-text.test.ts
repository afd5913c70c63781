import { describe, expect, it } from 'vitest';
import { parseDocsAgentCommand, statusUsageMessage, tooLongMessage } from '../../src/slack/command-text.js';
import { MAX_PROMPT_CHARS } from '../../src/slack/messages/help.js';

describe('parseDocsAgentCommand', () => {
  it('recognises help', () => {
    for (const text of [undefined, '', '  ', 'help', 'HELP', '--help', '-h', '?']) {
      expect(parseDocsAgentCommand(text)).toEqual({ kind: 'help' });
    }
  });

  it('recognises list and status <job id>', () => {
    expect(parseDocsAgentCommand('list')).toEqual({ kind: 'list' });
    expect(parseDocsAgentCommand(' List ')).toEqual({ kind: 'list' });
    expect(parseDocsAgentCommand('status job_0001')).toEqual({ kind: 'status', jobId: 'job_0001' });
    expect(parseDocsAgentCommand('status   a1b2-c3')).toEqual({ kind: 'status', jobId: 'a1b2-c3' });
    expect(parseDocsAgentCommand('status')).toEqual({ kind: 'status_usage' });
  });

  it('answers usage, never a new job, for status followed by a word that is no job id', () => {
    for (const text of [
      'status job/0001',
      'status #12',
      'status <https://x.example/job/1>',
      `status ${'a'.repeat(200)}`,
    ]) {
      expect(parseDocsAgentCommand(text, () => undefined)).toEqual({ kind: 'status_usage' });
    }
  });

  it('keeps instructions that merely start with list or status as instructions', () => {
    expect(parseDocsAgentCommand('list every endpoint in the API reference')).toEqual({
      kind: 'start',
      prompt: 'list every endpoint in the API reference',
    });
    expect(parseDocsAgentCommand('status codes need a table')).toEqual({
      kind: 'start',
      prompt: 'status codes need a table',
    });
  });

  it('converts markup in instructions and refuses overlong ones', () => {
    expect(parseDocsAgentCommand('fix <https://x.example|this page> &amp; more', () => undefined)).toEqual({
      kind: 'start',
      prompt: 'fix this page (https://x.example) & more',
    });
    const long = 'x'.repeat(MAX_PROMPT_CHARS + 1);
    expect(parseDocsAgentCommand(long)).toEqual({ kind: 'too_long', length: MAX_PROMPT_CHARS + 1 });
    expect(tooLongMessage(5000)).toContain('5,000');
    expect(statusUsageMessage()).toContain('/docs-agent status &lt;job id&gt;');
  });
});
