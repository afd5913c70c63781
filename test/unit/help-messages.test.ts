import { describe, expect, it } from 'vitest';
import { parsePageViewsCommand } from '../../src/insights/ranges/grammar.js';
import { statusUsageMessage } from '../../src/slack/command-text.js';
import { docsHealthHelp } from '../../src/slack/messages/health-help.js';
import { docsAgentHelpMessage } from '../../src/slack/messages/help.js';
import { pageViewsHelpMessage } from '../../src/slack/messages/page-views-help.js';
import { invalidPageViewsCommandMessage } from '../../src/slack/messages/page-views-replies.js';
import type { SlackMessage } from '../../src/slack/messages/types.js';

/** Every mrkdwn string of a message, and its fallback text. */
function texts(message: SlackMessage): string[] {
  const found: string[] = [message.text ?? ''];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') {
      const v = value as Record<string, unknown>;
      if (v.type === 'mrkdwn' && typeof v.text === 'string') found.push(v.text);
      for (const child of Object.values(v)) walk(child);
    }
  };
  walk(message.blocks);
  return found;
}

/** Slack reads `<…>` in mrkdwn as a link, a mention or a date: help shows placeholders, never those. */
const bareAngle = (text: string) => /[<>]/.test(text);

describe('help texts', () => {
  it('escape their placeholders (&lt;instruction&gt;, &lt;job id&gt;, &lt;weekday&gt; &lt;HH:MM&gt;)', () => {
    const all = [
      ...texts(docsAgentHelpMessage()),
      ...texts(docsAgentHelpMessage('/docs-agent', { connectable: true })),
      ...texts(pageViewsHelpMessage()),
      docsHealthHelp('/docs-health'),
      statusUsageMessage(),
    ];
    for (const text of all) expect(bareAngle(text), text).toBe(false);
    const joined = all.join('\n');
    for (const shown of ['&lt;instruction&gt;', '&lt;job id&gt;', '&lt;weekday&gt; &lt;HH:MM&gt;'])
      expect(joined).toContain(shown);
  });

  it('and so do the grammar’s answers to a misplaced schedule word', () => {
    const parsed = parsePageViewsCommand('monday');
    if (parsed.kind !== 'invalid') throw new Error(`expected invalid, got ${parsed.kind}`);
    const answer = invalidPageViewsCommandMessage('/docs-views', parsed.token, parsed.problem);
    expect(answer).toContain('`schedule &lt;weekday&gt; &lt;HH:MM&gt; [time zone]`');
    expect(bareAngle(answer)).toBe(false);
  });

  it('/docs-health help names each sub-command once', () => {
    const help = docsHealthHelp('/docs-health');
    expect(help.match(/alerts on \[sensitivity/g)).toHaveLength(1);
    expect(help.match(/schedule &lt;weekday&gt;/g)).toHaveLength(1);
  });

  it('/docs-agent help is short and grouped, with connect/disconnect only where projects are connected in Slack', () => {
    const single = texts(docsAgentHelpMessage()).join('\n');
    const oauth = texts(docsAgentHelpMessage('/docs-agent', { connectable: true })).join('\n');
    expect(single).not.toMatch(/connect/);
    expect(oauth).toContain('`/docs-agent connect` · `/docs-agent disconnect`');
    for (const message of [
      docsAgentHelpMessage(),
      docsAgentHelpMessage('/docs-agent', { connectable: true }),
    ]) {
      const section = texts(message)[1] ?? '';
      expect(section.split('\n').length).toBeLessThanOrEqual(6);
      for (const group of ['*Start a job*', '*Your jobs*', '*Docs project*', '*Reports*'])
        expect(section).toContain(group);
    }
  });
});

describe('the range grammar', () => {
  it('takes any Nd from 1 to 366', () => {
    for (const days of [1, 7, 14, 30, 45, 90, 180, 366]) {
      const parsed = parsePageViewsCommand(`${days}d top 5`);
      expect(parsed).toEqual({
        kind: 'report',
        params: { range: { kind: 'days', days }, top: 5, prefix: undefined },
        csv: false,
      });
    }
    expect(parsePageViewsCommand('14D')).toMatchObject({ params: { range: { kind: 'days', days: 14 } } });
  });

  it('refuses 0d, 367d and absurd lengths, saying what it takes', () => {
    for (const token of ['0d', '367d', '99999999999d']) {
      const parsed = parsePageViewsCommand(token);
      expect(parsed).toEqual({
        kind: 'invalid',
        token,
        problem: 'is not a number of days from 1 to 366, such as `7d` or `14d`',
      });
    }
  });
});
