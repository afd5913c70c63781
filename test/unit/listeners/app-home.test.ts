import { describe, expect, it, vi } from 'vitest';
import type { StartJobRequest, StartJobResult } from '../../../src/jobs/job-service.js';
import { homeNewJob } from '../../../src/slack/listeners/actions/home-new-job.js';
import { jobModalSubmission } from '../../../src/slack/listeners/actions/job-modal-submission.js';
import { appHomeOpened } from '../../../src/slack/listeners/events/app-home-opened.js';
import { JOB_MODAL_CALLBACK_ID } from '../../../src/slack/messages/job-modal.js';
import { SlackDeliveryError } from '../../../src/slack/slack-gateway.js';
import { access, deferredWork, recordingLogger, USER } from './fakes.js';

describe('appHomeOpened', () => {
  it("publishes the user's Home after the ack for the Home tab only", async () => {
    const work = deferredWork();
    const { logger } = recordingLogger();
    const home = { opened: vi.fn(async () => {}) };
    const callback = appHomeOpened({ logger, afterAck: work.afterAck, home });
    await callback({ event: { user: USER, tab: 'messages' }, body: { team_id: 'T0TEAM' } });
    expect(work.queued).toEqual([]);
    await callback({ event: { user: USER, tab: 'home' }, body: { team_id: 'T0TEAM' } });
    await work.run();
    expect(home.opened).toHaveBeenCalledExactlyOnceWith('T0TEAM', USER);
  });

  it('logs a failed publish instead of rejecting', async () => {
    const work = deferredWork();
    const { logger, lines } = recordingLogger();
    const home = { opened: vi.fn(async () => Promise.reject(new Error('slack down'))) };
    await appHomeOpened({ logger, afterAck: work.afterAck, home })({
      event: { user: USER, tab: 'home' },
      body: {},
    });
    await work.run();
    expect(lines.some((l) => l.includes('could not publish the Home tab'))).toBe(true);
  });
});

describe('homeNewJob', () => {
  const client = (openFails: boolean) => ({
    views: {
      open: vi.fn(async (_args: unknown) => {
        if (openFails) throw new Error('expired_trigger_id');
        return {};
      }),
    },
    chat: { postMessage: vi.fn(async (_args: { channel: string; text: string }) => ({})) },
  });

  it('opens the job modal with a channel picker', async () => {
    const c = client(false);
    const ack = vi.fn(async () => {});
    await homeNewJob({ logger: recordingLogger().logger })({
      ack,
      body: { trigger_id: '1.2.abc', user: { id: USER } },
      client: c,
    });
    expect(ack).toHaveBeenCalledOnce();
    const opened = JSON.stringify(c.views.open.mock.calls[0]?.[0]);
    expect(opened).toContain('"trigger_id":"1.2.abc"');
    expect(opened).toContain('conversations_select');
    expect(c.chat.postMessage).not.toHaveBeenCalled();
  });

  it('tells the user in their app DM when the modal cannot open', async () => {
    const c = client(true);
    await homeNewJob({ logger: recordingLogger().logger })({
      ack: async () => {},
      body: { trigger_id: '1.2.abc', user: { id: USER } },
      client: c,
    });
    expect(c.chat.postMessage).toHaveBeenCalledWith({
      channel: USER,
      text: expect.stringContaining("couldn't open the new job form"),
    });
  });
});

describe('jobModalSubmission from Home', () => {
  function setup(result: StartJobResult, allowed = {}) {
    const work = deferredWork();
    const started: StartJobRequest[] = [];
    const jobs = {
      start: vi.fn(async (request: StartJobRequest) => {
        started.push(request);
        return result;
      }),
      jobOfThread: vi.fn(async () => undefined),
    };
    const callback = jobModalSubmission({
      access: access(allowed),
      jobs,
      logger: recordingLogger().logger,
      afterAck: work.afterAck,
    });
    const c = {
      conversations: {
        replies: vi.fn(async () => ({ messages: [] })),
        members: vi.fn(async () => ({
          members: [USER, 'U0DOCSBOT'],
          response_metadata: { next_cursor: '' },
        })),
      },
      chat: {
        postEphemeral: vi.fn(async (_args: { channel: string; user: string; text: string }) => ({})),
        postMessage: vi.fn(async (_args: { channel: string; text: string }) => ({})),
      },
    };
    return { callback, work, started, jobs, c };
  }
  const body = (channel: string) => ({
    user: { id: USER },
    team: { id: 'T0TEAM' },
    view: {
      callback_id: JOB_MODAL_CALLBACK_ID,
      private_metadata: '{"o":"home"}',
      state: {
        values: {
          instruction: { instruction_input: { value: 'Document the export API' } },
          channel: { channel_input: { selected_conversation: channel } },
        },
      },
    },
  });

  it('starts an app_home job whose card opens a new thread in the picked channel', async () => {
    const t = setup({ ok: true, record: {} as never });
    const ack = vi.fn(async (_r?: unknown) => {});
    await t.callback({ ack, body: body('C0PICKED'), client: t.c, context: { botUserId: 'U0DOCSBOT' } });
    expect(ack).toHaveBeenCalledWith();
    await t.work.run();
    expect(t.jobs.jobOfThread).not.toHaveBeenCalled();
    expect(t.started).toEqual([
      {
        teamId: 'T0TEAM',
        channelId: 'C0PICKED',
        threadTs: null,
        requesterId: USER,
        prompt: 'Document the export API',
        origin: 'app_home',
      },
    ]);
  });

  it('shows a refused channel under the picker and starts nothing', async () => {
    const t = setup({ ok: true, record: {} as never }, { channelIds: ['C0DOCS'] });
    const ack = vi.fn(async (_r?: unknown) => {});
    await t.callback({ ack, body: body('C0PICKED'), client: t.c, context: { botUserId: 'U0DOCSBOT' } });
    expect(ack).toHaveBeenCalledWith({
      response_action: 'errors',
      errors: { channel: expect.stringContaining('not enabled in this conversation') },
    });
    expect(t.work.queued).toEqual([]);
  });

  it('tells the user in their app DM when the card cannot be posted in the picked channel', async () => {
    const t = setup({ ok: false, stage: 'card', error: new SlackDeliveryError('channel_not_found', 'no') });
    await t.callback({
      ack: async () => {},
      body: body('G0PRIVATE'),
      client: t.c,
      context: { botUserId: 'U0DOCSBOT' },
    });
    await t.work.run();
    expect(t.c.chat.postEphemeral).not.toHaveBeenCalled();
    const told = t.c.chat.postMessage.mock.calls[0]?.[0];
    expect(told?.channel).toBe(USER);
    expect(told?.text).toContain('Your job for <#G0PRIVATE> did not start.');
    expect(told?.text).toContain('/invite @docs-agent');
  });
});
