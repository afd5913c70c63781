import { describe, expect, it, vi } from 'vitest';
import { AppError } from '../../../src/common/errors.js';
import type { AgentJob } from '../../../src/jobs/domain/job.js';
import { newJobRecord } from '../../../src/jobs/domain/job.js';
import type { JobStatusResult, StartJobResult } from '../../../src/jobs/job-service.js';
import {
  type DocsAgentCommandDeps,
  docsAgentCommand,
} from '../../../src/slack/listeners/commands/docs-agent.js';
import { SlackDeliveryError } from '../../../src/slack/slack-errors.js';
import {
  access,
  allText,
  answers,
  CHANNEL,
  deferredWork,
  only,
  recordingLogger,
  slashCommand,
  USER,
} from './fakes.js';

const record = newJobRecord(
  {
    jobId: 'job_42',
    teamId: 'T0TEAM',
    channelId: CHANNEL,
    threadTs: '1700000000.000100',
    cardTs: '1700000000.000100',
    requesterId: USER,
    prompt: 'Document the 429 response',
    origin: 'command',
    status: 'active',
    repository: 'https://github.com/acme/docs',
    ref: 'agent/429',
    model: null,
    prLink: null,
  },
  Date.now() - 60_000,
);
const job: AgentJob = {
  id: 'job_42',
  status: 'completed',
  repository: 'https://github.com/acme/docs',
  ref: 'agent/429',
  model: null,
  prLink: 'https://github.com/acme/docs/pull/7',
  createdAt: new Date().toISOString(),
  archivedAt: null,
};

function setup(overrides: Partial<DocsAgentCommandDeps> = {}) {
  const work = deferredWork();
  const { logger, lines } = recordingLogger();
  const jobs = {
    start: vi.fn(async (): Promise<StartJobResult> => ({ ok: true, record })),
    status: vi.fn(async (): Promise<JobStatusResult> => ({ ok: true, job, record, projectId: 'proj_test' })),
    listWatched: vi.fn(async () => [record]),
  };
  const deps: DocsAgentCommandDeps = {
    access: access(),
    jobs,
    logger,
    afterAck: work.afterAck,
    ...overrides,
  };
  const { ack, respond, calls } = answers();
  const run = (text: string) =>
    docsAgentCommand(deps)({ command: slashCommand('/docs-agent', text), ack, respond });
  return { run, ack, respond, calls, jobs, work, lines };
}

describe('docsAgentCommand', () => {
  it('answers help in the acknowledgement, for `help` and for an empty or invisible text', async () => {
    for (const text of ['help', '', '   ', '\u200b']) {
      const t = setup();
      await t.run(text);
      const answer = only(t.ack);
      expect(answer.response_type).toBe('ephemeral');
      expect(allText(answer)).toContain('/docs-agent list');
      expect(t.respond).not.toHaveBeenCalled();
      expect(t.work.queued).toHaveLength(0);
      expect(t.jobs.start).not.toHaveBeenCalled();
    }
  });

  it('acknowledges `list` first, then lists the channel’s followed jobs via response_url', async () => {
    const t = setup();
    t.jobs.listWatched.mockImplementationOnce(async () => {
      t.calls.push('listWatched');
      return [record];
    });
    await t.run('list');
    // The state store can be slow or away: nothing waits on it before the ack.
    expect(t.calls).toEqual(['ack', 'listWatched', 'respond']);
    expect(t.ack).toHaveBeenCalledWith();
    expect(t.jobs.listWatched).toHaveBeenCalledWith(CHANNEL);
    const answer = only(t.respond);
    expect(answer.response_type).toBe('ephemeral');
    expect(allText(answer)).toContain('job_42');
    expect(allText(answer)).toContain('Document the 429 response');
  });

  it('says the state store is unreachable when the list cannot be read', async () => {
    const t = setup();
    t.jobs.listWatched.mockRejectedValueOnce(new AppError('state_unavailable', 'redis down'));
    await t.run('list');
    expect(t.ack).toHaveBeenCalledWith();
    expect(only(t.respond).text).toMatch(/can't reach my storage/);
    expect(t.lines.join('')).toContain('could not list jobs');
  });

  it('acknowledges `status <id>` first, then answers with the job fresh from the platform', async () => {
    const t = setup();
    t.jobs.status.mockImplementationOnce(async () => {
      t.calls.push('status');
      return { ok: true, job, record, projectId: 'proj_test' };
    });
    await t.run('status job_42');
    expect(t.calls).toEqual(['ack', 'status', 'respond']);
    expect(t.ack).toHaveBeenCalledWith();
    // Asked in a channel by someone: the use case decides what that viewer may see.
    expect(t.jobs.status).toHaveBeenCalledWith('job_42', {
      channelId: CHANNEL,
      userId: expect.any(String),
      isAdmin: false,
    });
    const answer = only(t.respond);
    expect(answer.response_type).toBe('ephemeral');
    expect(allText(answer)).toContain('https://github.com/acme/docs/pull/7');
  });

  it('answers `status` followed by a word that is no job id with the usage, and looks nothing up', async () => {
    for (const text of ['status', 'status ¿qué?', 'status <@U0BOB>']) {
      const t = setup();
      await t.run(text);
      expect(only(t.ack).text).toMatch(/^Usage: `\/docs-agent status &lt;job id&gt;`/);
      expect(t.jobs.status).not.toHaveBeenCalled();
      expect(t.jobs.start).not.toHaveBeenCalled();
    }
  });

  it('refuses a user outside ALLOWED_USER_IDS before reading anything', async () => {
    const t = setup({ access: access({ userIds: ['U0BOB'] }) });
    await t.run('Fix the quickstart');
    expect(only(t.ack).text).toContain('allowed users');
    expect(t.work.queued).toHaveLength(0);
  });

  it('refuses an instruction over the limit in the acknowledgement', async () => {
    const t = setup();
    await t.run('x'.repeat(4001));
    expect(only(t.ack).text).toContain('4,001 characters');
    expect(t.work.queued).toHaveLength(0);
  });

  it('acknowledges an instruction at once and starts the job only in the work after the acknowledgement', async () => {
    const t = setup();
    await t.run('Document the 429 &amp; 503 responses in <https://docs.acme.test/api|the API>');
    expect(t.ack).toHaveBeenCalledWith();
    expect(t.jobs.start).not.toHaveBeenCalled();
    expect(t.work.queued).toHaveLength(1);
    await t.work.run();
    expect(t.jobs.start).toHaveBeenCalledWith({
      teamId: 'T0TEAM',
      channelId: CHANNEL,
      threadTs: null,
      requesterId: USER,
      // Slack markup arrives as plain text for the agent.
      prompt: 'Document the 429 & 503 responses in the API (https://docs.acme.test/api)',
      origin: 'command',
      // Where a start handed over at shutdown tells the person if its card is refused.
      responseUrl: expect.stringMatching(/^https:\/\/hooks\.slack\.test\//),
    });
    // The card in the channel is the answer: nothing ephemeral on success.
    expect(t.respond).not.toHaveBeenCalled();
  });

  it('tells the user privately when the state store or the card post fails', async () => {
    const state = setup();
    state.jobs.start.mockResolvedValueOnce({ ok: false, stage: 'state', error: new Error('down') });
    await state.run('Fix the quickstart');
    await state.work.run();
    expect(only(state.respond).text).toMatch(/can't reach my storage/);

    const card = setup();
    card.jobs.start.mockResolvedValueOnce({
      ok: false,
      stage: 'card',
      error: new SlackDeliveryError('not_in_channel', 'Slack call failed: not_in_channel'),
    });
    await card.run('Fix the quickstart');
    await card.work.run();
    expect(only(card.respond).text).toContain('/invite @docs-agent');
    expect(card.lines.join('')).toContain('could not post job card');
  });
});
