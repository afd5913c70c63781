import { expect } from 'vitest';
import { assistantThreadStarted } from './assistant-events.js';
import { waitFor } from './http.js';
import { eventEnvelope, nextMessageTs } from './slack-events.js';
import { startTestApp, type TestApp } from './test-app.js';

/**
 * The assistant container's integration tests' one app at a time (memory or Redis state), and what they ask
 * of it: send an event, open a thread, find its stream, read the bot's posts in a thread.
 */
export function assistantHarness(mode: 'memory' | 'Redis', redisUrl: () => string | undefined) {
  let app: TestApp | undefined;
  let db = 0;

  async function boot(env: Record<string, string> = {}): Promise<TestApp> {
    // Each Redis-mode test its own database (of Redis's 16): the fake's job ids restart at 1.
    if (mode === 'Redis') db += 1;
    app = await startTestApp({
      env: { ...(mode === 'Redis' ? { REDIS_URL: `${redisUrl()}/${db}` } : {}), ...env },
    });
    return app;
  }

  async function send(t: TestApp, event: Record<string, unknown>) {
    const response = await t.event(eventEnvelope(event));
    expect(response.status).toBe(200);
    return event;
  }

  /** A new assistant thread, its prompts offered (so its record is in the store). */
  async function openThread(t: TestApp, contextChannel?: string): Promise<string> {
    const threadTs = nextMessageTs();
    await send(t, assistantThreadStarted({ threadTs, ...(contextChannel ? { contextChannel } : {}) }));
    await waitFor(() => t.slack.assistant.prompts.find((p) => p.threadTs === threadTs), { what: 'prompts' });
    return threadTs;
  }

  const streamOf = (t: TestApp, threadTs: string) =>
    waitFor(() => [...t.slack.assistant.streams.values()].find((s) => s.threadTs === threadTs), {
      what: 'stream',
    });

  // The bot's posts in a thread, but the confirmation cards asking before a job starts.
  const botPosts = (t: TestApp, threadTs: string) =>
    t.slack
      .callsOf('chat.postMessage')
      .filter((c) => c.args.thread_ts === threadTs && !JSON.stringify(c.args).includes('assistant_confirm_'));

  /** Stops the test's app (afterEach). */
  async function stop(): Promise<void> {
    await app?.stop();
    app = undefined;
  }

  return { boot, send, openThread, streamOf, botPosts, stop };
}
