import { describe, expect, it, vi } from 'vitest';
import type { JobRecord } from '../../../src/jobs/domain/job.js';
import type { StartJobRequest, StartJobResult } from '../../../src/jobs/job-service.js';
import { reactionAdded } from '../../../src/slack/listeners/events/reaction-added.js';
import { access, CHANNEL, deferredWork, recordingLogger, USER } from './fakes.js';

type Message = { ts: string; thread_ts?: string; text?: string; user?: string };
const byPerson = (messages: Message[] = []) => messages.map((m) => ({ user: 'U0BOB', ...m }));

function setup(
  options: {
    history?: Message[];
    replies?: Message[];
    result?: StartJobResult;
    allowed?: { channelIds?: string[] };
  } = {},
) {
  const work = deferredWork();
  const { logger } = recordingLogger();
  const claims = new Set<string>();
  const started: StartJobRequest[] = [];
  const jobs = {
    start: vi.fn(async (request: StartJobRequest) => {
      started.push(request);
      return options.result ?? ({ ok: true, record: {} } as StartJobResult);
    }),
    claimOnce: vi.fn(async (key: string) => !claims.has(key) && Boolean(claims.add(key))),
    releaseOnce: vi.fn(async (key: string) => void claims.delete(key)),
    confirmOnce: vi.fn(async (_key: string) => undefined),
    jobOfThread: vi.fn(async (_channel: string, threadTs: string) =>
      threadTs === '9.0' ? ({ jobId: 'job_0009' } as JobRecord) : undefined,
    ),
  };
  const client = {
    conversations: {
      // Written by a person of this workspace unless a test says otherwise.
      history: vi.fn(async (_args: unknown) => ({ messages: byPerson(options.history) })),
      replies: vi.fn(async (_args: unknown) => ({ messages: byPerson(options.replies) })),
    },
    chat: { postEphemeral: vi.fn(async (_args: { channel: string; user: string; text: string }) => ({})) },
  };
  const callback = reactionAdded({ access: access(options.allowed), logger, afterAck: work.afterAck, jobs });
  const react = (ts: string, reaction = 'memo') =>
    callback({
      event: { reaction, user: USER, item: { type: 'message', channel: CHANNEL, ts } },
      body: { team_id: 'T0TEAM' },
      client,
    });
  return { react, work, started, jobs, client, claims };
}

describe('reactionAdded', () => {
  it('starts a job from the reacted message after the acknowledgement, once per message', async () => {
    const t = setup({ history: [{ ts: '5.1', text: 'Fix &amp; explain' }] });
    await t.react('5.1');
    await t.react('5.1');
    await t.react('5.1', 'eyes');
    expect(t.started).toEqual([]);
    expect(t.work.queued).toHaveLength(2);
    await t.work.run();
    expect(t.started).toEqual([
      {
        teamId: 'T0TEAM',
        channelId: CHANNEL,
        threadTs: '5.1',
        requesterId: USER,
        prompt: `Slack message by @U0BOB, sent to the docs agent by @${USER}:\n\nFix & explain`,
        origin: 'reaction',
        // The reacted message is the job's source: its emoji follows the job.
        sourceTs: '5.1',
      },
    ]);
    expect(t.claims).toEqual(new Set([`dedupe:reaction:T0TEAM:${CHANNEL}:5.1`]));
    expect(t.client.conversations.history).toHaveBeenCalledWith({
      channel: CHANNEL,
      latest: '5.1',
      inclusive: true,
      limit: 1,
    });
  });

  it('reads a reply from its thread and posts the card there', async () => {
    const t = setup({
      replies: [
        { ts: '5.0', text: 'root' },
        { ts: '5.2', thread_ts: '5.0', text: 'the reply' },
      ],
    });
    await t.react('5.2');
    await t.work.run();
    expect(t.started[0]).toMatchObject({ prompt: expect.stringMatching(/\n\nthe reply$/), threadTs: '5.0' });
  });

  it('tells the reacting user privately and gives the claim back when nothing could start', async () => {
    const unreadable = setup();
    unreadable.client.conversations.history.mockRejectedValueOnce(
      Object.assign(new Error('not_in_channel'), { code: 'slack_webapi_platform_error' }),
    );
    await unreadable.react('5.1');
    await unreadable.work.run();
    const down = setup({
      history: [{ ts: '5.1', text: 'x' }],
      result: { ok: false, stage: 'state', error: new Error() },
    });
    await down.react('5.1');
    await down.work.run();
    const denied = setup({ allowed: { channelIds: ['C0OTHER'] } });
    await denied.react('5.1');
    await denied.work.run();
    const texts = [unreadable, down, denied].map((t) => t.client.chat.postEphemeral.mock.calls[0]?.[0]);
    expect(texts.map((args) => args?.user)).toEqual([USER, USER, USER]);
    expect(texts[0]?.text).toContain("can't read that message");
    expect(texts[1]?.text).toContain("can't reach my storage");
    expect(texts[2]?.text).toContain('not enabled in this conversation');
    expect([unreadable.claims.size, down.claims.size, denied.claims.size]).toEqual([0, 0, 0]);
    expect(denied.jobs.claimOnce).not.toHaveBeenCalled();
  });

  it('starts no second job in a job thread, and gives the claim back', async () => {
    const t = setup({
      replies: [
        { ts: '9.0', text: 'card' },
        { ts: '9.5', thread_ts: '9.0', text: 'a reply' },
      ],
    });
    await t.react('9.5');
    await t.work.run();
    expect(t.started).toEqual([]);
    expect(t.claims.size).toBe(0);
    expect(t.client.chat.postEphemeral.mock.calls[0]?.[0].text).toContain(
      'already follows docs agent job `job_0009`',
    );
  });
});
