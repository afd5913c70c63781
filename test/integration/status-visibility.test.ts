import { describe, expect, it } from 'vitest';
import { appsOnRedis } from '../support/apps-on-redis.js';
import { waitFor } from '../support/http.js';
import type { TestApp } from '../support/test-app.js';

const lab = appsOnRedis();

/** `/docs-agent status <id>` from a user in a channel; resolves the text of the answer sent to response_url. */
async function askStatus(t: TestApp, jobId: string, userId: string, channelId: string): Promise<string> {
  const responseUrl = t.slack.responseUrl();
  await t.command({
    text: `status ${jobId}`,
    user_id: userId,
    channel_id: channelId,
    response_url: responseUrl,
  });
  const path = new URL(responseUrl).pathname;
  const answer = await waitFor(() => t.slack.responses.find((r) => r.path === path), {
    what: 'status answer',
  });
  return JSON.stringify(answer.body);
}

describe.each([
  ['memory', () => ({})],
  ['Redis', () => ({ REDIS_URL: lab.redisUrl() })],
])('/docs-agent status visibility (%s mode)', (_mode, env) => {
  it("answers in the job's channel, to its requester and to admins; to anyone else it is not visible", async () => {
    const t = await lab.start({ env: { ...env(), ADMIN_USER_IDS: 'U0ADMIN' } });
    await t.command({ text: 'Document the secret launch', user_id: 'U0ALICE', channel_id: 'C0LAUNCH' });
    const job = await waitFor(() => [...t.docs.jobs.values()][0], { what: 'job created' });
    // Finished, so polling has stopped and every later GET of the job is a status lookup.
    t.docs.complete(job.id, 'https://github.com/acme/docs/pull/77');
    await waitFor(() => t.slack.messages.find((m) => m.thread_ts && m.text.includes('pull/77')), {
      what: 'terminal reply',
    });
    const gets = () => t.docs.requestsTo('GET', new RegExp(`/job/${job.id}$`)).length;

    const before = gets();
    const stranger = await askStatus(t, job.id, 'U0BOB', 'C0ELSEWHERE');
    expect(stranger).toContain('is not visible here');
    expect(stranger).not.toContain('secret launch');
    expect(stranger).not.toContain('C0LAUNCH');
    expect(stranger).not.toContain('U0ALICE');
    // Nothing was even fetched for it.
    expect(gets()).toBe(before);
    // An id the bot knows nothing of gets the very same answer: an id reveals no job's existence.
    const unknown = await askStatus(t, 'job_9999', 'U0BOB', 'C0ELSEWHERE');
    expect(unknown.replaceAll('job_9999', job.id)).toBe(stranger);

    // A visible job's answer links its thread (in C0LAUNCH).
    expect(await askStatus(t, job.id, 'U0BOB', 'C0LAUNCH')).toContain('archives/C0LAUNCH');
    expect(await askStatus(t, job.id, 'U0ALICE', 'C0ELSEWHERE')).toContain('archives/C0LAUNCH');
    expect(await askStatus(t, job.id, 'U0ADMIN', 'C0ELSEWHERE')).toContain('archives/C0LAUNCH');
    // An admin asking for an id the bot does not follow gets the platform's answer.
    expect(await askStatus(t, 'job_9999', 'U0ADMIN', 'C0ELSEWHERE')).toContain('No job');
  });
});
