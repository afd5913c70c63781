import { describe, expect, it, vi } from 'vitest';
import type { Evidence } from '../../../src/insights/health/evidence.js';
import { decodeEvidenceRef, encodeEvidenceRef } from '../../../src/insights/health/evidence-ref.js';
import { HealthEvidence } from '../../../src/insights/health/health-evidence.js';
import type { StartJobRequest, StartJobResult } from '../../../src/jobs/job-service.js';
import { healthFixAction } from '../../../src/slack/listeners/actions/health-fix.js';
import { healthFixSubmission } from '../../../src/slack/listeners/actions/health-fix-submission.js';
import { createMemoryEvidenceStore } from '../../../src/state/keyv-evidence-store.js';
import { checkMessage } from '../../support/slack-block-kit-limits.js';
import { access, answers, buttonClick, CHANNEL, deferredWork, only, recordingLogger, USER } from './fakes.js';

const range = { from: '2026-03-03', toExclusive: '2026-03-10' };
/** Quotes and backslashes: JSON-escaped twice (button value, then private_metadata) it passed 3,000. */
const quoteHeavy: Evidence = {
  kind: 'page',
  path: `/guide/${'"'.repeat(100)}`,
  thumbsDown: 9,
  thumbsUp: 1,
  comments: ['"'.repeat(400), '"'.repeat(400), '"'.repeat(400)],
  removed: 3,
  range,
};

// biome-ignore lint/suspicious/noExplicitAny: inspecting the opened view
type View = any;

function setup(store = new HealthEvidence(createMemoryEvidenceStore(recordingLogger().logger))) {
  const { logger } = recordingLogger();
  const { ack, respond } = answers();
  const open = vi.fn(async (_args: { trigger_id: string; view: View }) => undefined);
  const click = healthFixAction({ access: access(), logger, health: { evidence: store } });
  const work = deferredWork();
  const start = vi.fn(async (_request: StartJobRequest) => ({ ok: true }) as unknown as StartJobResult);
  const submitAck = vi.fn(async (_response?: unknown) => undefined);
  const submission = healthFixSubmission({
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
    health: { evidence: store },
  });
  const press = (value: string) => {
    const { body, action } = buttonClick('health_fix_page_1', value);
    return click({ ack, body, action, respond, client: { views: { open } } });
  };
  const submit = (view: View, instruction: string) =>
    submission({
      ack: submitAck,
      body: {
        user: { id: USER },
        team: { id: 'T0TEAM' },
        view: {
          ...view,
          state: {
            values: { health_instruction: { instruction: { type: 'plain_text_input', value: instruction } } },
          },
        },
      },
      client: { chat: { postEphemeral: vi.fn(), postMessage: vi.fn() } },
    });
  return { store, press, submit, open, respond, start, submitAck, work };
}

describe('fix evidence kept server-side under a short id', () => {
  it('opens the form for quote-heavy evidence: only the id travels, the modal fits Slack', async () => {
    const t = setup();
    const id = await t.store.save(quoteHeavy);
    expect(id.length).toBeLessThan(30);
    await t.press(id);
    const view = t.open.mock.calls[0]?.[0].view;
    expect(view.private_metadata.length).toBeLessThan(100);
    expect(checkMessage({ blocks: view.blocks }, 'modal')).toEqual({ ok: true });
    expect(JSON.stringify(view.blocks)).toContain('3 invisible characters');

    await t.submit(view, 'Fix the guide page');
    expect(t.submitAck).toHaveBeenCalledWith();
    await t.work.run();
    const request = t.start.mock.calls[0]?.[0];
    expect(request?.prompt.startsWith('Fix the guide page\n\n')).toBe(true);
    expect(request?.prompt).toContain('⟦reader input⟧');
    expect(decodeEvidenceRef(request?.evidenceRef ?? '')).toMatchObject({ kind: 'page', thumbsDown: 9 });
  });

  it('still opens buttons posted before ids (the evidence itself as the value), storing it on the way', async () => {
    const t = setup();
    // Before ids, this value made a 3,796-character private_metadata: Slack refused the form.
    expect(
      JSON.stringify({ channelId: CHANNEL, evidenceRef: encodeEvidenceRef(quoteHeavy) }).length,
    ).toBeGreaterThan(3000);
    await t.press(encodeEvidenceRef(quoteHeavy));
    const view = t.open.mock.calls[0]?.[0].view;
    expect(view.private_metadata.length).toBeLessThan(100);
    expect(JSON.parse(view.private_metadata).evidenceId).toMatch(/^ev_/);
  });

  it('answers "run /docs-health again" for an unknown or expired id, in the channel and in the form', async () => {
    const t = setup();
    await t.press('ev_AAAAAAAAAAAAAAAA');
    expect(t.open).not.toHaveBeenCalled();
    expect(only(t.respond).text).toContain('Run `/docs-health` again');

    await t.submit(
      {
        callback_id: 'health_fix_submit',
        private_metadata: JSON.stringify({ channelId: CHANNEL, evidenceId: 'ev_AAAAAAAAAAAAAAAA' }),
      },
      'Fix it',
    );
    expect(t.submitAck.mock.calls[0]?.[0]).toMatchObject({ response_action: 'errors' });
    expect(JSON.stringify(t.submitAck.mock.calls[0]?.[0])).toContain('/docs-health');
    expect(t.work.queued).toHaveLength(0);
  });
});
