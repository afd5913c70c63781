import { afterEach, describe, expect, it } from 'vitest';
import { type BotProcess, startBotProcess } from '../support/bot-process.js';
import { FakeDocs } from '../support/fake-docs.js';
import { FakeSlack } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';

/*
 * Issue 11: SIGTERM during a burst of commands, with the real process and production pacing (one post per
 * second per channel after a burst of four). Every acknowledged command must end with a job and its card.
 */

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

describe('shutdown during a burst (real process)', () => {
  it('SIGTERM mid-burst: every acknowledged command gets its job and card, none is told "restarting"', async () => {
    const slack = await FakeSlack.start();
    const docs = await FakeDocs.start();
    cleanups.push(
      () => slack.close(),
      () => docs.close(),
    );
    // Job creation is slow enough that the burst is still being worked on when SIGTERM arrives.
    docs.latencyMs = 300;
    const bot: BotProcess = await startBotProcess({
      slack,
      docs,
      env: { SLACK_CHANNEL_POST_INTERVAL_MS: '1000', LOG_LEVEL: 'info' },
    });
    cleanups.push(() => bot.kill());
    const channels = ['CBURST1', 'CBURST2', 'CBURST3'];
    const prompts = Array.from({ length: 14 }, (_, i) => `Burst item ${i}`);
    const acks = await Promise.all(
      prompts.map((text, i) => bot.command({ text, channel_id: channels[i % channels.length] })),
    );
    expect(acks.map((a) => a.status)).toEqual(prompts.map(() => 200));
    await bot.stop();
    const exit = await bot.exited;
    expect(exit.code).toBe(0);

    const texts = slack.messages.map((m) => m.text).join('\n');
    expect(texts).not.toContain('restarting');
    const prompted = [...docs.jobs.values()].map((job) => job.prompts[0]);
    expect(prompted.sort()).toEqual([...prompts].sort());
    for (const channel of channels) {
      const cards = slack.messages.filter((m) => m.channel === channel && !m.thread_ts);
      expect(cards.length, `cards in ${channel}`).toBe(
        prompts.filter((_, i) => channels[i % 3] === channel).length,
      );
    }
    // The log says what the shutdown finished and what, if anything, it handed back.
    await waitFor(() => bot.logs.some((l) => String(l.msg).startsWith('docs-agent stopped')), {
      what: 'stop log',
    });
    const stoppedLine = bot.logs.find((l) => String(l.msg).startsWith('docs-agent stopped'));
    expect(stoppedLine).toMatchObject({ unfinishedSlackWork: 0 });
    expect(bot.logs.map((l) => l.msg)).not.toContain('shutdown took longer than 10 s; exiting');
  }, 40_000);
});
