import { describe, expect, it, vi } from 'vitest';
import type { JobRecord } from '../../../src/jobs/domain/job.js';
import type { StartJobRequest, StartJobResult } from '../../../src/jobs/job-service.js';
import { jobModalSubmission } from '../../../src/slack/listeners/actions/job-modal-submission.js';
import { sendToDocsAgentShortcut } from '../../../src/slack/listeners/actions/send-to-docs-agent.js';
import { encodeRefs, JOB_MODAL_CALLBACK_ID } from '../../../src/slack/messages/job-modal.js';
import { access, CHANNEL, deferredWork, recordingLogger, USER } from './fakes.js';

const JOB_THREAD = '90.000001';

type Replies = Array<{ ts?: string; user?: string; text?: string; subtype?: string }>;

function client(replies: Replies = [], openFails = false) {
  return {
    conversations: {
      replies: vi.fn(async () => ({ messages: replies })),
      // Read only for a job from Home.
      members: vi.fn(async () => ({ members: [] })),
    },
    views: {
      open: vi.fn(async (_args: unknown) => {
        if (openFails)
          throw Object.assign(new Error('expired_trigger_id'), { code: 'slack_webapi_platform_error' });
        return {};
      }),
    },
    chat: {
      postEphemeral: vi.fn(async (_args: { channel: string; user: string; text: string }) => ({})),
      postMessage: vi.fn(async (_args: { channel: string; text: string }) => ({})),
    },
  };
}

function shortcut(message: { ts: string; thread_ts?: string; text?: string }) {
  return { trigger_id: '1.2.abc', user: { id: USER }, channel: { id: CHANNEL }, message };
}

describe('sendToDocsAgentShortcut', () => {
  it('opens the modal with the message as plain text and the thread before it as context', async () => {
    const { logger } = recordingLogger();
    const c = client([
      { ts: '100.000001', user: 'U0BOB', text: 'The flag is <https://x.test|documented here>' },
      { ts: '100.000002', user: 'U0BOB', text: 'later' },
    ]);
    const ack = vi.fn(async () => {});
    const respond = vi.fn(async () => ({}));
    await sendToDocsAgentShortcut({ access: access(), logger })({
      ack,
      respond,
      client: c,
      shortcut: shortcut({ ts: '100.000002', thread_ts: '100.000001', text: 'Fix &lt;this&gt;' }),
    });
    expect(ack).toHaveBeenCalledOnce();
    expect(c.conversations.replies).toHaveBeenCalledWith(
      expect.objectContaining({ channel: CHANNEL, ts: '100.000001', latest: '100.000002', inclusive: false }),
    );
    const view = JSON.stringify(c.views.open.mock.calls[0]?.[0]);
    expect(view).toContain('"initial_value":"Fix <this>"');
    expect(view).toContain('documented here (https://x.test)');
    expect(view).not.toContain('later');
    expect(respond).not.toHaveBeenCalled();
  });

  it('does not read a thread for a top-level message, and refuses privately where it is not enabled', async () => {
    const { logger } = recordingLogger();
    const c = client();
    const respond = vi.fn(async (_m: { text: string }) => ({}));
    const args = { ack: async () => {}, respond, client: c, shortcut: shortcut({ ts: '1.1', text: 'x' }) };
    await sendToDocsAgentShortcut({ access: access({ channelIds: ['C0OTHER'] }), logger })(args);
    expect(c.views.open).not.toHaveBeenCalled();
    expect(respond.mock.calls[0]?.[0].text).toContain('not enabled in this conversation');
    await sendToDocsAgentShortcut({ access: access(), logger })(args);
    expect(c.conversations.replies).not.toHaveBeenCalled();
    expect(c.views.open).toHaveBeenCalledOnce();
  });

  it('explains a message without text and a modal Slack refused', async () => {
    const { logger } = recordingLogger();
    const respond = vi.fn(async (_m: { text: string }) => ({}));
    const base = { ack: async () => {}, respond };
    await sendToDocsAgentShortcut({ access: access(), logger })({
      ...base,
      client: client(),
      shortcut: shortcut({ ts: '1.1', text: '' }),
    });
    expect(respond.mock.calls[0]?.[0].text).toContain('no text to send');
    await sendToDocsAgentShortcut({ access: access(), logger })({
      ...base,
      client: client([], true),
      shortcut: shortcut({ ts: '1.1', text: 'Fix it' }),
    });
    expect(respond.mock.calls[1]?.[0].text).toContain('Try the shortcut again');
  });
});

function submitted(
  instruction: string,
  includeContext = false,
  refs = {
    origin: 'message_shortcut' as const,
    channelId: CHANNEL,
    threadTs: '100.000001',
    messageTs: '100.000002',
  },
) {
  return {
    user: { id: USER },
    team: { id: 'T0TEAM' },
    view: {
      callback_id: JOB_MODAL_CALLBACK_ID,
      private_metadata: encodeRefs(refs),
      state: {
        values: {
          instruction: { instruction_input: { value: instruction } },
          ...(includeContext
            ? { thread_context: { include_context: { selected_options: [{ value: 'include' }] } } }
            : {}),
        },
      },
    },
  };
}

function submissionSetup(result: StartJobResult = { ok: true, record: {} as never }, allowed = {}) {
  const work = deferredWork();
  const { logger } = recordingLogger();
  const started: StartJobRequest[] = [];
  const jobs = {
    start: vi.fn(async (request: StartJobRequest) => {
      started.push(request);
      return result;
    }),
    status: vi.fn(),
    listWatched: vi.fn(),
    jobOfThread: vi.fn(async (_channel: string, threadTs: string) =>
      threadTs === JOB_THREAD ? ({ jobId: 'job_0007' } as JobRecord) : undefined,
    ),
  };
  const callback = jobModalSubmission({ access: access(allowed), jobs, logger, afterAck: work.afterAck });
  return { callback, work, started };
}

describe('jobModalSubmission', () => {
  it('closes the modal, then starts the job in the message thread with the thread as context', async () => {
    const t = submissionSetup();
    const c = client([{ ts: '100.000001', user: 'U0BOB', text: 'Background' }]);
    const ack = vi.fn(async (_r?: unknown) => {});
    await t.callback({ ack, body: submitted('Document it', true), client: c });
    expect(ack).toHaveBeenCalledWith();
    expect(t.started).toEqual([]);
    await t.work.run();
    expect(t.started).toEqual([
      expect.objectContaining({
        teamId: 'T0TEAM',
        channelId: CHANNEL,
        threadTs: '100.000001',
        requesterId: USER,
        prompt: 'Document it',
        origin: 'message_shortcut',
        // The message the shortcut was used on is the job's source: its emoji follows the job.
        sourceTs: '100.000002',
        context: expect.stringContaining('> Background'),
      }),
    ]);
  });

  it('keeps the modal open with the reason when the instruction is empty or access is refused', async () => {
    const t = submissionSetup(undefined, { userIds: ['U0SOMEONE'] });
    const ack = vi.fn(async (_r?: unknown) => {});
    await t.callback({ ack, body: submitted(''), client: client() });
    await t.callback({ ack, body: submitted('Document it'), client: client() });
    expect(ack.mock.calls.map((call) => call[0])).toEqual([
      { response_action: 'errors', errors: { instruction: 'Write what the docs agent should do.' } },
      { response_action: 'errors', errors: { instruction: expect.stringContaining('allowed users') } },
    ]);
    expect(t.work.queued).toEqual([]);
  });

  it('tells the user privately when the job could not start after the modal closed', async () => {
    const t = submissionSetup({ ok: false, stage: 'state', error: new Error('down') });
    const c = client();
    await t.callback({ ack: async () => {}, body: submitted('Document it'), client: c });
    await t.work.run();
    expect(c.conversations.replies).not.toHaveBeenCalled();
    expect(c.chat.postEphemeral).toHaveBeenCalledWith(
      expect.objectContaining({
        channel: CHANNEL,
        user: USER,
        text: expect.stringContaining("can't reach my storage"),
      }),
    );
  });

  it('starts no second job in a thread that already follows one', async () => {
    const t = submissionSetup();
    const c = client();
    const refs = {
      origin: 'message_shortcut' as const,
      channelId: CHANNEL,
      threadTs: JOB_THREAD,
      messageTs: '90.000002',
    };
    await t.callback({ ack: async () => {}, body: submitted('Document it', false, refs), client: c });
    await t.work.run();
    expect(t.started).toEqual([]);
    expect(c.chat.postEphemeral.mock.calls[0]?.[0].text).toContain(
      'already follows docs agent job `job_0007`',
    );
  });
});
