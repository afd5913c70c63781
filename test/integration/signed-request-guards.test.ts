import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../support/http.js';
import { postSigned, slashCommandBody } from '../support/slack-signing.js';
import { SIGNING_SECRET, startTestApp, type TestApp } from '../support/test-app.js';

/*
 * Issue 27: Slack's signature is valid for five minutes, so a captured command sent again within that
 * window must not start a second job. The same body with the same signature runs once; a new invocation
 * (Slack mints a new trigger_id each time) runs again.
 */

let app: TestApp | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a signed request replayed within Slack’s five-minute window', () => {
  it('runs once: one job for a command sent three times with the same signature', async () => {
    const t = await startTestApp();
    app = t;
    const events = `${t.url}/slack/events`;
    const body = slashCommandBody({ text: 'Document the export API', response_url: t.slack.responseUrl() });
    const timestamp = Math.floor(Date.now() / 1000) - 60;
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await postSigned(events, body, SIGNING_SECRET, { timestamp }));
    for (const answer of answers) expect(answer.status).toBe(200);
    await waitFor(() => [...t.docs.jobs.values()][0], { what: 'the job' });
    await sleep(400);
    expect(t.docs.jobs.size).toBe(1);

    // Another invocation of the same text is a new request (its own trigger_id): a second job.
    await t.command({ text: 'Document the export API' });
    await waitFor(() => (t.docs.jobs.size === 2 ? true : undefined), { what: 'the second job' });
  });
});

describe('a signed request whose response_url is not Slack’s', () => {
  it('is refused: nothing runs and nothing is sent to that address', async () => {
    const t = await startTestApp();
    app = t;
    const stranger = await listenForPosts();
    try {
      const answer = await t.command({ text: 'list', response_url: `${stranger.url}/hooks/x` });
      expect(answer.status).toBe(200);
      await t.command({ text: 'Document the export API', response_url: `${stranger.url}/hooks/y` });
      await sleep(600);
      expect(stranger.posts).toBe(0);
      expect(t.docs.jobs.size).toBe(0);
      expect(t.logs.join('\n')).toContain('response_url is not on Slack');
      // The same command with Slack's (here: the fake's) response_url runs.
      await t.command({ text: 'Document the export API' });
      await waitFor(() => (t.docs.jobs.size === 1 ? true : undefined), { what: 'the job' });
    } finally {
      await stranger.close();
    }
  });
});

/** A stranger's HTTP server on loopback that counts what is POSTed to it. */
async function listenForPosts() {
  const { createServer } = await import('node:http');
  let posts = 0;
  const server = createServer((req, res) => {
    posts += 1;
    req.resume();
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.2', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.2:${port}`,
    get posts() {
      return posts;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
