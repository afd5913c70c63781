import { expect } from 'vitest';
import type { StoredMessage } from './fake-slack.js';
import { waitFor } from './http.js';
import { eventEnvelope } from './slack-events.js';
import { startTestApp, type TestApp } from './test-app.js';

/**
 * The conversation tests' shared setup: one app per test (stopped by `stopConversationApp` in afterEach),
 * three named users, a job started with /docs-agent, the bot's replies in a thread and signed events.
 */
let app: TestApp | undefined;

export async function stopConversationApp(): Promise<void> {
  await app?.stop();
  app = undefined;
}

export async function boot(env: Record<string, string> = {}): Promise<TestApp> {
  app = await startTestApp({ env });
  app.slack.users.set('U0ALICE', { name: 'alice', display_name: 'Alice' });
  app.slack.users.set('U0BOB', { name: 'bob', display_name: 'Bob' });
  app.slack.users.set('U0CAROL', { name: 'carol', real_name: 'Carol Jones', display_name: '' });
  return app;
}

/** Starts a job with /docs-agent and waits until it is tracked; resolves the job and its card. */
export async function startJob(t: TestApp, text = 'Document the 429 response') {
  const before = t.docs.jobs.size;
  await t.command({ text });
  const job = await waitFor(
    () => (t.docs.jobs.size > before ? [...t.docs.jobs.values()].at(-1) : undefined),
    {
      what: 'job created',
    },
  );
  await waitFor(() => t.slack.callsOf('chat.update').some((c) => JSON.stringify(c.args).includes(job.id)), {
    what: 'card tracked',
  });
  const card = t.slack.messages.find((m) => !m.thread_ts && JSON.stringify(m.blocks).includes(job.id));
  if (!card) throw new Error('no card');
  return { job, card };
}

export function botReplies(t: TestApp, channel: string, threadTs: string): StoredMessage[] {
  return t.slack.threadReplies(channel, threadTs).filter((m) => m.bot_id);
}

export async function send(t: TestApp, event: Record<string, unknown>) {
  const response = await t.event(eventEnvelope(event));
  expect(response.status).toBe(200);
  return event;
}
