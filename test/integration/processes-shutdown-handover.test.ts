import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../support/http.js';
import { bot, fakes, jobWithPrompt, redisServer, sleep, stopProcesses } from '../support/process-helpers.js';

/*
 * Issue 35: SIGTERM during a burst of acknowledged commands, two real replicas on one redis-server. An
 * acknowledged command survives the stop: its job is started (by the stopping replica, or handed over to
 * the one that stays), with exactly one card; nobody is told "restarting, try again".
 */

afterEach(stopProcesses);

describe('acknowledged commands survive SIGTERM (real processes, one Redis)', () => {
  it('SIGTERM to one of two replicas mid-burst of 14: every command gets its job and one card, once', async () => {
    const { slack, docs } = await fakes();
    const redis = await redisServer();
    // Production pacing (one post per second per channel after a burst of four) and slow creates: the
    // burst is still being worked on when the signal arrives.
    docs.latencyMs = 300;
    const env = {
      SLACK_CHANNEL_POST_INTERVAL_MS: '1000',
      POLL_INTERVAL_MS: '200',
      POLL_MAX_INTERVAL_MS: '400',
      LOG_LEVEL: 'info',
    };
    const [a] = await Promise.all([
      bot({ name: 'a', slack, docs, redisUrl: redis.url, env }),
      bot({ name: 'b', slack, docs, redisUrl: redis.url, env }),
    ]);
    const channels = ['C0HAND1', 'C0HAND2'];
    const burst = Array.from({ length: 14 }, (_, i) => ({
      channel: channels[i % channels.length]!,
      prompt: `Hand-over item (${i})`,
    }));
    const acks = await Promise.all(burst.map((c) => a.command({ text: c.prompt, channel_id: c.channel })));
    expect(acks.map((ack) => ack.status)).toEqual(burst.map(() => 200));
    await a.stop();
    expect((await a.exited).code).toBe(0);

    // Every acknowledged command ends with its job created upstream, once.
    await waitFor(() => burst.every((c) => jobWithPrompt(docs, c.prompt)), {
      what: 'a job for every command',
      timeoutMs: 45_000,
    });
    await sleep(3_000);
    const prompted = [...docs.jobs.values()].map((job) => job.prompts[0]);
    expect(prompted.sort()).toEqual(burst.map((c) => c.prompt).sort());
    // …and exactly one card in its channel that names it.
    for (const c of burst) {
      const job = jobWithPrompt(docs, c.prompt)!;
      const cards = slack.messages.filter(
        (m) => m.channel === c.channel && !m.thread_ts && JSON.stringify(m).includes(c.prompt),
      );
      expect(cards, `cards of "${c.prompt}"`).toHaveLength(1);
      await waitFor(() => JSON.stringify(slack.message(c.channel, cards[0]!.ts)).includes(job.id), {
        what: `card of ${job.id} tracking its job`,
        timeoutMs: 15_000,
      });
    }
    const handedOver = a.logs.filter((l) =>
      String(l.msg).startsWith('stopping: job start handed over'),
    ).length;
    console.info(
      `[figure] SIGTERM mid-burst: ${handedOver} of ${burst.length} starts handed over, all started once`,
    );
    // Nobody was told to try again (answers go through response_url, or as messages).
    const said = JSON.stringify({ messages: slack.messages, responses: slack.responses });
    expect(said).not.toContain('restarting');
    expect(said).not.toContain('not started');
  }, 120_000);
});
