import { describe, expect, it, vi } from 'vitest';
import type { Evidence } from '../../../src/insights/health/evidence.js';
import { encodeEvidenceRef } from '../../../src/insights/health/evidence-ref.js';
import { fixPrompt } from '../../../src/insights/health/instruction.js';
import type { StartJobRequest, StartJobResult } from '../../../src/jobs/job-service.js';
import { docsHealthPostAction } from '../../../src/slack/listeners/actions/docs-health-post.js';
import { HEALTH_FIX_ACTION, healthFixAction } from '../../../src/slack/listeners/actions/health-fix.js';
import { healthFixSubmission } from '../../../src/slack/listeners/actions/health-fix-submission.js';
import { HEALTH_MODAL_CALLBACK, healthFixModal } from '../../../src/slack/messages/health-modal.js';
import { POST_HEALTH_ACTION } from '../../../src/slack/messages/health-report.js';
import { SlackDeliveryError } from '../../../src/slack/slack-errors.js';
import { access, answers, buttonClick, CHANNEL, deferredWork, only, recordingLogger, USER } from './fakes.js';

const range = { from: '2026-03-03', toExclusive: '2026-03-10' };
const search: Evidence = { kind: 'search', query: 'rate limits', hits: 42, ctr: 0, share: 0.1, range };

describe('healthFixAction (a row’s fix button)', () => {
  function setup(allowed: Parameters<typeof access>[0] = {}) {
    const { logger } = recordingLogger();
    const { ack, respond, calls } = answers();
    const open = vi.fn(async (_args: { trigger_id: string; view: unknown }) => {
      calls.push('views.open');
    });
    const callback = healthFixAction({ access: access(allowed), logger });
    const click = (value: string | undefined) => {
      const { body, action } = buttonClick('health_fix_search_1', value);
      return callback({ ack, body, action, respond, client: { views: { open } } });
    };
    return { click, ack, respond, open, calls };
  }

  it('matches every row’s action id and nothing else', () => {
    expect(HEALTH_FIX_ACTION.test('health_fix_search_1')).toBe(true);
    expect(HEALTH_FIX_ACTION.test('health_fix_question_25')).toBe(true);
    expect(HEALTH_FIX_ACTION.test('health_fix_submit')).toBe(false);
  });

  it('acknowledges, then opens the prefilled modal with the click’s trigger_id, before anything else', async () => {
    const t = setup();
    await t.click(encodeEvidenceRef(search));
    expect(t.calls).toEqual(['ack', 'views.open']);
    const args = t.open.mock.calls[0]![0];
    expect(args.trigger_id).toBe('1.2.abc');
    expect(JSON.stringify(args.view)).toContain('rate limits');
  });

  it('answers privately for a value it did not write, a refused user, and a modal Slack would not open', async () => {
    const bad = setup();
    await bad.click('{"kind":"search"}');
    expect(bad.open).not.toHaveBeenCalled();
    expect(only(bad.respond).text).toContain('Run `/docs-health` again');

    const denied = setup({ userIds: ['U0SOMEONEELSE'] });
    await denied.click(encodeEvidenceRef(search));
    expect(denied.open).not.toHaveBeenCalled();
    expect(only(denied.respond).response_type).toBe('ephemeral');

    const expired = setup();
    expired.open.mockRejectedValueOnce(new Error('invalid_trigger_id'));
    await expired.click(encodeEvidenceRef(search));
    expect(only(expired.respond).text).toContain('Click the button again');
  });
});

describe('healthFixSubmission (the fix modal submitted)', () => {
  const view = { ...healthFixModal(search, CHANNEL), callback_id: HEALTH_MODAL_CALLBACK };
  const values = (value: string) => ({
    values: { health_instruction: { instruction: { type: 'plain_text_input', value } } },
  });

  function setup(result: unknown = { ok: true }) {
    const { logger } = recordingLogger();
    const work = deferredWork();
    const start = vi.fn(async (_request: StartJobRequest) => result as StartJobResult);
    const ack = vi.fn(async (_response?: unknown) => undefined);
    const postEphemeral = vi.fn(async () => {
      throw new Error('channel_not_found');
    });
    const postMessage = vi.fn(async (_args: { channel: string; text: string }) => undefined);
    const callback = healthFixSubmission({
      access: access(),
      logger,
      afterAck: work.afterAck,
      jobs: {
        start,
        listWatched: async () => [],
        jobOfThread: async () => undefined,
        claimOnce: async () => true,
        releaseOnce: async () => undefined,
      },
    });
    const submit = (instruction: string) =>
      callback({
        ack,
        body: { user: { id: USER }, team: { id: 'T0TEAM' }, view: { ...view, state: values(instruction) } },
        client: { chat: { postEphemeral, postMessage } },
      });
    return { submit, ack, start, work, postMessage };
  }

  it('closes the modal, then starts a health_fix job in the report’s channel carrying the evidence', async () => {
    const t = setup();
    await t.submit('  Add a rate-limits page  ');
    expect(t.ack).toHaveBeenCalledWith();
    expect(t.start).not.toHaveBeenCalled();
    await t.work.run();
    expect(t.start.mock.calls[0]![0]).toMatchObject({
      channelId: CHANNEL,
      threadTs: null,
      requesterId: USER,
      prompt: fixPrompt('Add a rate-limits page', search),
      origin: 'health_fix',
      evidenceRef: encodeEvidenceRef(search),
    });
  });

  it('keeps the modal open for an empty instruction; a card Slack refused is explained in the user’s DM', async () => {
    const empty = setup();
    await empty.submit(' ');
    expect(empty.ack.mock.calls[0]![0]).toMatchObject({ response_action: 'errors' });
    expect(empty.work.queued).toHaveLength(0);

    const refused = setup({
      ok: false,
      stage: 'card',
      error: new SlackDeliveryError('not_in_channel', 'Slack call failed: not_in_channel'),
    });
    await refused.submit('Add a page');
    await refused.work.run();
    expect(refused.postMessage.mock.calls[0]![0]).toMatchObject({ channel: USER });
    expect(refused.postMessage.mock.calls[0]![0].text).toContain('did not start');
  });
});

describe('docsHealthPostAction ("Post to channel")', () => {
  function setup(publish = vi.fn(async () => undefined)) {
    const { logger } = recordingLogger();
    const { ack, respond } = answers();
    const reports = {
      now: () => Date.parse('2026-03-10T12:00:00Z'),
      report: vi.fn(),
      publish,
      inChannel: vi.fn(),
    };
    const callback = docsHealthPostAction({
      access: access(),
      logger,
      health: {
        reports,
        weekly: {
          ...{ schedule: vi.fn(), unschedule: vi.fn(), list: vi.fn() },
          ...{ removeSchedule: vi.fn(), restore: vi.fn() },
        },
        siteUrl: undefined,
      },
    });
    const click = (value: string | undefined) => {
      const { body, action } = buttonClick(POST_HEALTH_ACTION, value);
      return callback({ ack, body, action, respond });
    };
    return { click, respond, publish };
  }

  it('posts the button’s days and top N and replaces the ephemeral report', async () => {
    const t = setup();
    await t.click('2026-03-03..2026-03-09 top 3');
    expect(t.publish).toHaveBeenCalledWith(
      CHANNEL,
      { range: { kind: 'explicit', from: '2026-03-03', to: '2026-03-09' }, top: 3 },
      USER,
    );
    expect(only(t.respond)).toMatchObject({ replace_original: true });
  });

  it('says what went wrong without replacing the report', async () => {
    const gone = setup();
    await gone.click('csv');
    expect(only(gone.respond).text).toContain('Run `/docs-health` again');
    const refused = setup(
      vi.fn(async () =>
        Promise.reject(new SlackDeliveryError('not_in_channel', 'Slack call failed: not_in_channel')),
      ),
    );
    await refused.click('7d');
    expect(only(refused.respond)).toMatchObject({ replace_original: false });
  });
});
