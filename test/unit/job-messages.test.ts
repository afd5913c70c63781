import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../../src/jobs/domain/job.js';
import { describeSlackDeliveryFailure } from '../../src/slack/messages/failures.js';
import { formatDuration, repositoryLabel, slackTime } from '../../src/slack/messages/format.js';
import { jobCardMessage } from '../../src/slack/messages/job-card.js';
import { jobStatusMessage } from '../../src/slack/messages/job-list.js';
import { noticeMessage, terminalReplyMessage } from '../../src/slack/messages/job-replies.js';
import { LIMITS, truncate } from '../../src/slack/messages/limits.js';
import type { SlackMessage } from '../../src/slack/messages/types.js';
import { jobRecord } from '../support/job-records.js';
import { checkMessage } from '../support/slack-block-kit-limits.js';

const NOW = Date.parse('2026-11-21T10:00:00Z');

function record(overrides: Partial<JobRecord> = {}): JobRecord {
  return jobRecord({ jobId: 'job_0001', ref: 'docs-agent/429', model: 'claude', ...overrides });
}

/** Every Slack limit the views promise to respect, checked as the fake Slack checks them. */
function expectWithinLimits(message: SlackMessage): void {
  expect(message.text.length).toBeGreaterThan(0);
  expect(message.text.length).toBeLessThanOrEqual(LIMITS.fallbackText);
  expect(checkMessage(message)).toEqual({ ok: true });
}

/** The blocks as plain JSON, to look inside them. */
// biome-ignore lint/suspicious/noExplicitAny: inspecting Block Kit JSON
const json = (message: SlackMessage): any[] => message.blocks;

/** Text that Slack would turn into a ping if it reached mrkdwn unescaped. */
const PINGS = /<!channel>|<!here>|<!everyone>|<@U0EVIL>|<!subteam/;

describe('job status and replies', () => {
  const job = {
    id: 'job_0001',
    status: 'active',
    repository: 'https://github.com/acme/docs',
    ref: 'docs-agent/429',
    model: 'claude',
    prLink: null,
    createdAt: '2026-11-21T09:58:55Z',
    archivedAt: null,
  };

  it('/docs-agent status uses the card words and Slack date formatting, not raw status and ISO time', () => {
    const view = jobStatusMessage(job, record());
    const text = JSON.stringify(view.blocks);
    expect(text).toContain('*Working: the agent is editing the docs*');
    expect(text).not.toContain('*active*');
    expect(text).toContain(`<!date^${Date.parse(job.createdAt) / 1000}^{date_short} at {time}|`);
    expect(text).not.toContain('2026-11-21T09:58:55Z');
    expect(view.text).toBe('Docs agent job status: Working: the agent is editing the docs');
  });

  it('the failed reply says what is known and where to look, not that nothing changed', () => {
    const reply = terminalReplyMessage(record({ status: 'failed' }), { kind: 'failed' }, NOW);
    const text = JSON.stringify(reply.blocks);
    expect(text).not.toContain('Nothing was changed');
    expect(text).toContain('no pull request was opened');
    expect(text).toContain('pushed part of the work to a branch');
    expect(text).not.toContain('docs-agent/429');
    expect(text).toContain('*Retry*');
  });

  it('the terminal reply text keeps the mention and the whole PR link, for when Slack refuses the blocks', () => {
    const prLink = `https://github.com/acme/docs/pull/7?${'x'.repeat(3200)}`;
    const reply = terminalReplyMessage(record(), { kind: 'pull_request', prLink }, NOW);
    expect(reply.text).toContain('<@U0ALICE>');
    expect(reply.text).toContain(prLink);
    expect(checkMessage(reply)).toEqual({ ok: true });
    expect(JSON.stringify(reply.blocks)).toContain(`"url":"${prLink}"`);
  });
});

describe('job card', () => {
  it('shows requester, status and details once tracked', () => {
    const view = jobCardMessage({
      requesterId: 'U0ALICE',
      prompt: 'Document it',
      state: { phase: 'tracked', record: record(), now: NOW },
    });
    const json = JSON.stringify(view.blocks);
    expect(json).toContain('<@U0ALICE>');
    expect(json).toContain('acme/docs');
    // No job id nor branch on the card (issue 46): the ⋯ menu gives the id (the actions' block id, never
    // shown, names the job for that menu).
    expect(JSON.stringify(view.blocks, (k, v) => (k === 'block_id' ? undefined : v))).not.toContain(
      'job_0001',
    );
    expect(json).toContain('"block_id":"job:job_0001"');
    expect(json).not.toContain('docs-agent/429');
    expect(json).toContain('Copy job ID');
    expect(view.text).toContain('Working');
    expectWithinLimits(view);
  });

  it('shows when a running job started as a Slack date token, which stays true without updates', () => {
    const view = jobCardMessage({
      requesterId: 'U0ALICE',
      prompt: 'Document it',
      state: { phase: 'tracked', record: record(), now: NOW },
    });
    const started = Math.floor((NOW - 65_000) / 1000);
    expect(JSON.stringify(view.blocks)).toContain(`started <!date^${started}^{date_short} at {time}|`);
    // Rendered a minute later, the card is the same: nothing needs to be re-sent for time to move.
    const later = jobCardMessage({
      requesterId: 'U0ALICE',
      prompt: 'Document it',
      state: { phase: 'tracked', record: record(), now: NOW + 60_000 },
    });
    expect(later.blocks).toEqual(view.blocks);
  });

  it('the starting card notification has no doubled punctuation', () => {
    const view = jobCardMessage({ requesterId: 'U0ALICE', prompt: 'Fix it', state: { phase: 'starting' } });
    expect(view.text).toBe('Docs agent job: Starting the agent.');
  });

  it('shortens a long repository label, never its link markup', () => {
    const repository = `https://github.com/acme/${'d'.repeat(1000)}`;
    const view = jobCardMessage({
      requesterId: 'U0ALICE',
      prompt: 'Document it',
      state: { phase: 'tracked', record: record({ repository }), now: NOW },
    });
    expectWithinLimits(view);
    const context = json(view).find((b) => b.type === 'context').elements[0].text as string;
    expect(context).toMatch(/ · <https:\/\/github\.com\/acme\/d+\|acme\/d+…> · /);
  });

  it('shows a pull request link too long for a button as a text link, not as nothing', () => {
    const prLink = `https://github.com/acme/docs/pull/1?${'x'.repeat(3100)}`;
    const view = jobCardMessage({
      requesterId: 'U0ALICE',
      prompt: 'Document it',
      state: { phase: 'tracked', record: record({ status: 'completed', prLink }), now: NOW },
    });
    expectWithinLimits(view);
    expect(JSON.stringify(view.blocks)).toContain(`"type":"link","url":"${prLink}"`);
  });

  it('titles the card with the instruction, defused, and quotes a longer one whole as literal rich text', () => {
    const line = 'Hey <!channel> and <@U0EVIL> see <https://evil.example|click> *bold* ```code```';
    const short = jobCardMessage({ requesterId: 'U0ALICE', prompt: line, state: { phase: 'starting' } });
    expect(JSON.stringify(short.blocks)).not.toMatch(PINGS);
    expect(json(short)[0].text.text).toContain('Hey');
    expect(json(short).some((b) => b.type === 'rich_text')).toBe(false);
    const prompt = `${line}\n\nAnd a second paragraph.`;
    const view = jobCardMessage({ requesterId: 'U0ALICE', prompt, state: { phase: 'starting' } });
    const quote = json(view).find((b) => b.type === 'rich_text');
    expect(quote.elements[0].elements[0]).toEqual({ type: 'text', text: prompt });
    const mrkdwn = view.blocks.filter((b) => b.type !== 'rich_text');
    expect(JSON.stringify(mrkdwn)).not.toMatch(PINGS);
    expect(view.text).not.toMatch(PINGS);
    expectWithinLimits(view);
  });

  it('stays within limits for huge prompts and odd values', () => {
    const huge = '𝔘'.repeat(40_000);
    const view = jobCardMessage({
      requesterId: 'U0ALICE',
      prompt: huge,
      state: {
        phase: 'tracked',
        record: record({
          ref: 'x'.repeat(5000),
          model: 'm'.repeat(5000),
          prLink: 'https://github.com/acme/docs/pull/1',
        }),
        now: NOW,
      },
    });
    expectWithinLimits(view);
    const quoted = json(view).find((b) => b.type === 'rich_text').elements[0].elements[0].text as string;
    expect(Array.from(quoted).length).toBeLessThanOrEqual(LIMITS.richTextQuote);
    expect(JSON.stringify(view.blocks)).toContain('View pull request');
  });

  it('never interpolates a malformed user id into markup', () => {
    const view = jobCardMessage({ requesterId: 'U1> <!channel', prompt: 'x', state: { phase: 'starting' } });
    expect(JSON.stringify(view.blocks)).not.toMatch(PINGS);
  });

  it('says how long a finished job took, even while the record is still marked watched', () => {
    const done = record({
      status: 'completed',
      watching: true,
      prLink: 'https://github.com/acme/docs/pull/1',
    });
    const json = JSON.stringify(
      jobCardMessage({
        requesterId: 'U0ALICE',
        prompt: 'x',
        state: { phase: 'tracked', record: done, now: NOW },
      }).blocks,
    );
    expect(json).toContain('took 1 min');
    expect(json).not.toContain('Running for');
  });

  it('shows why a job was not started', () => {
    const view = jobCardMessage({
      requesterId: 'U0ALICE',
      prompt: 'x',
      state: { phase: 'not_started', reason: 'The platform is down.' },
    });
    expect(JSON.stringify(view.blocks)).toContain('Not started');
    expect(JSON.stringify(view.blocks)).toContain('The platform is down.');
  });
});

describe('terminal replies', () => {
  it('links the pull request with a button and mentions the requester', () => {
    const view = terminalReplyMessage(
      record({ status: 'completed' }),
      { kind: 'pull_request', prLink: 'https://github.com/acme/docs/pull/7' },
      NOW,
    );
    const json = JSON.stringify(view.blocks);
    expect(json).toContain('<@U0ALICE>');
    expect(json).toContain('"url":"https://github.com/acme/docs/pull/7"');
    expect(view.text).toContain('https://github.com/acme/docs/pull/7');
    expectWithinLimits(view);
  });

  it.each([
    [{ kind: 'no_changes', previousPrLink: null }, 'without changing any files'],
    [{ kind: 'no_changes', previousPrLink: 'https://github.com/acme/docs/pull/7' }, 'unchanged'],
    [{ kind: 'failed' }, 'stopped with an error'],
    [{ kind: 'archived' }, 'archived'],
  ] as const)('explains %o and what to do', (outcome, phrase) => {
    const view = terminalReplyMessage(record(), outcome, NOW);
    expect(JSON.stringify(view.blocks)).toContain(phrase);
    expect(JSON.stringify(view.blocks)).toContain('<@U0ALICE>');
    expectWithinLimits(view);
  });

  it('notices say why watching stopped', () => {
    expect(JSON.stringify(noticeMessage({ kind: 'watch_expired', maxAgeMs: 6 * 3600_000 }).blocks)).toContain(
      '6 h',
    );
    expect(JSON.stringify(noticeMessage({ kind: 'job_gone' }).blocks)).toContain('no longer knows');
  });
});

describe('formatting helpers', () => {
  it('formats durations', () => {
    expect(formatDuration(4_000)).toBe('4 s');
    expect(formatDuration(192_000)).toBe('3 min');
    expect(formatDuration(3_840_000)).toBe('1 h 4 min');
  });

  it('says why a card could not be posted, and what to do', () => {
    expect(describeSlackDeliveryFailure('not_in_channel')).toContain('/invite @docs-agent');
    expect(describeSlackDeliveryFailure('shutting_down')).toContain('restarting');
    expect(describeSlackDeliveryFailure('shutting_down')).toContain('not started');
    expect(describeSlackDeliveryFailure('<!channel>')).not.toContain('<!channel>');
  });

  it('truncates by code points, never splitting an emoji, and leaves short text as it is', () => {
    expect(truncate('short', 5)).toBe('short');
    expect(truncate('👍👍👍', 3)).toBe('👍👍👍');
    expect(truncate('👍👍👍👍', 3)).toBe('👍👍…');
    expect(truncate('abcdef', 4)).toBe('abc…');
  });

  it('labels repositories and renders local times with a UTC fallback', () => {
    expect(repositoryLabel('https://github.com/acme/docs.git')).toBe('acme/docs');
    expect(repositoryLabel('not a url')).toBe('not a url');
    expect(slackTime(NOW)).toBe(`<!date^${NOW / 1000}^{date_short} at {time}|21 Nov 2026 10:00 UTC>`);
  });
});
