import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../support/http.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

/** A local port nothing listens on: connections to it are refused before any request is sent. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

function failedCards(t: TestApp): string[] {
  return t.slack.messages
    .filter((m) => !m.thread_ts)
    .map((m) => JSON.stringify(m.blocks ?? []))
    .filter((b) => b.includes('Not started'));
}

describe('job budget refund', () => {
  it('a create refused before sending (connection refused) gives its budget unit back', async () => {
    const port = await closedPort();
    app = await startTestApp({
      env: { DOCS_API_URL: `http://127.0.0.1:${port}`, AGENT_JOBS_PER_HOUR: '1' },
    });
    await app.command({ text: 'First job' });
    await waitFor(() => failedCards(app!).length === 1, { what: 'first card failed', timeoutMs: 20_000 });
    await app.command({ text: 'Second job' });
    await waitFor(() => failedCards(app!).length === 2, { what: 'second card failed', timeoutMs: 20_000 });
    const [first, second] = failedCards(app);
    // Both fail for the real reason (the platform is unreachable); the bot's own count of a budget of one
    // would refuse the second as "hourly limit" had the first, never sent, kept its unit.
    expect(first).not.toContain('hourly limit');
    expect(second).not.toContain('hourly limit');
    const metrics = await (await fetch(`${app.metricsUrl}/metrics`)).text();
    expect(metrics).toMatch(/quota_remaining\{[^}]*budget="agent_jobs"[^}]*\} 1\b/);
  }, 60_000);
});
