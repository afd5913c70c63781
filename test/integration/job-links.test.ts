import { afterEach, describe, expect, it } from 'vitest';
import { FAKE_PROJECT_ID } from '../support/fake-docs.js';
import { waitFor } from '../support/http.js';
import { blockActionsPayload } from '../support/slack-interactions.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const apps: TestApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.stop();
});

const PATTERN = 'https://dashboard.example.com/projects/{projectId}/jobs/{jobId}';
const CHANNEL = 'C0DOCS';

async function tracked(env: Record<string, string> = {}) {
  const t = await startTestApp({ env });
  apps.push(t);
  await t.command({ text: 'Fix the typo on the auth page', user_id: 'U0ALICE', channel_id: CHANNEL });
  const job = await waitFor(() => (t.docs.jobs.size === 1 ? t.docs.onlyJob : undefined), { what: 'job' });
  const card = await waitFor(() => t.slack.messages.find((m) => !m.thread_ts && m.channel === CHANNEL), {
    what: 'card',
  });
  const blocks = await waitFor(
    () => {
      const text = JSON.stringify(t.slack.message(card.channel, card.ts)?.blocks);
      return text.includes('Working') ? text : undefined;
    },
    { what: 'card tracked' },
  );
  return { t, job, card, blocks };
}

describe('job links and the job id (issue 46)', () => {
  it('with DOCS_JOB_URL_PATTERN the card opens the job page; ⋯ → Copy job ID answers only the clicker with the id', async () => {
    const { t, job, card, blocks } = await tracked({ DOCS_JOB_URL_PATTERN: PATTERN });
    const url = `https://dashboard.example.com/projects/${encodeURIComponent(FAKE_PROJECT_ID)}/jobs/${encodeURIComponent(job.id)}`;
    expect(blocks).toContain(`"url":"${url}"`);
    expect(blocks).toContain('Open in dashboard');

    const responseUrl = t.slack.responseUrl('copy-job-id');
    const answer = await t.interaction(
      blockActionsPayload({
        userId: 'U0BOB',
        triggerId: 'trigger-copy',
        action: { action_id: 'job_card_menu', selected: 'copy_job_id', text: 'Copy job ID' },
        container: { type: 'message', channelId: CHANNEL, messageTs: card.ts, responseUrl },
      }),
    );
    expect(answer.status).toBe(200);
    const told = await waitFor(() => t.slack.responses.find((r) => r.path.endsWith('/copy-job-id')), {
      what: 'the private answer',
    });
    expect(told.body).toMatchObject({ response_type: 'ephemeral', replace_original: false });
    expect(String(told.body.text)).toContain(`\`${job.id}\``);
    // Only privately: no message in the channel or the thread shows the id (the button's link and the
    // actions' block id, which nobody reads, hold it).
    const hidden = new Set(['url', 'block_id']);
    const shown = (m: unknown) => JSON.stringify(m, (key, value) => (hidden.has(key) ? undefined : value));
    expect(t.slack.messages.filter((m) => shown(m).includes(job.id))).toEqual([]);
  });

  it('without the pattern the card has no dashboard link (no dead links), and still its ⋯ menu', async () => {
    const { blocks } = await tracked();
    expect(blocks).not.toContain('open_job_page');
    expect(blocks).not.toContain('Open in dashboard');
    expect(blocks).toContain('Copy job ID');
  });
});
