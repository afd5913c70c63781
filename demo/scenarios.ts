import { openAssistant } from './bot-events.js';
import { BOT_USER, DEMO_CHANNEL, type DemoMessage, type StandInSlack } from './stand-in-slack.js';
import type { World } from './world.js';

/**
 * What the playground opens on and what its scenario bar does. Everything is done as a person would in
 * Slack (a command, a reply, a subscription) and the bot answers with its real messages; only time is
 * helped along (jobs that finish in seconds, a weekly post brought forward, a search term that surges).
 */

export const SCENARIOS = ['job-fails', 'alert-fires', 'weekly-post', 'paste-link', 'open-assistant'] as const;
export type Scenario = (typeof SCENARIOS)[number];

/** Search terms that start to surge, one per "Alert fires" (new terms: no baseline, so the rise is improbable). */
const SURGING = [
  ['sso saml setup', 160],
  ['webhook signature invalid', 120],
  ['terraform import', 90],
  ['rotate api key', 75],
  ['sdk timeout error', 60],
] as const;

async function until<T>(what: string, find: () => T | undefined, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = find();
    if (found) return found;
    if (Date.now() > deadline)
      throw new Error(`I waited ${timeoutMs / 1000} s for ${what} and it did not come`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const botMessages = (slack: StandInSlack) =>
  slack.messages.filter((m) => m.user === BOT_USER && m.channel === DEMO_CHANNEL && !m.ephemeral);
const replies = (slack: StandInSlack, ts: string) =>
  slack.messages.filter((m) => m.thread_ts === ts && m.ts !== ts);
const says = (m: DemoMessage, text: string) => JSON.stringify([m.text, m.blocks ?? []]).includes(text);

/** A job's card (the bot's top-level message naming the instruction) once posted. */
function card(slack: StandInSlack, instruction: string): DemoMessage | undefined {
  return botMessages(slack).find((m) => !m.thread_ts && says(m, instruction));
}

export class Scenarios {
  private surged = 0;
  private weekly = 0;

  constructor(private readonly world: World) {}

  /** The seeded channel: a finished job with its PR and a follow-up, a running job, an alert, a weekly post. */
  async seed(): Promise<void> {
    const workMs = this.world.docs.workMs;
    // The seeded jobs finish fast (the channel is ready sooner); the person's own jobs take the usual time.
    this.world.docs.workMs = Math.min(workMs, 500);
    try {
      await this.seedChannel();
    } finally {
      this.world.docs.workMs = workMs;
    }
  }

  private async seedChannel(): Promise<void> {
    const { slack, docs, requests } = this.world;
    const done = 'Fix the typo in the quickstart install step';
    await requests.perform({ kind: 'type', text: `/docs-agent ${done}` });
    const first = await until('the first job card', () => card(slack, done));
    await until('the pull request reply', () => replies(slack, first.ts).find((m) => says(m, 'pull/')));
    const followUp = 'Also say that Node 22 or newer is required';
    await requests.perform({ kind: 'type', text: followUp, threadTs: first.ts });
    const asked = await until('the follow-up', () =>
      replies(slack, first.ts).find((m) => m.text === followUp),
    );
    await until('the follow-up answer', () =>
      replies(slack, first.ts).find((m) => m.user === BOT_USER && m.ts > asked.ts && says(m, 'pull/')),
    );

    docs.slowNextMs = 60 * 60_000;
    const running = 'Document the webhook retry schedule';
    await requests.perform({ kind: 'type', text: `/docs-agent ${running}` });
    await until('the running job card', () => card(slack, running));

    await this.alertFires();
    await this.weeklyPost();
  }

  async run(name: string): Promise<void> {
    switch (name) {
      case 'job-fails':
        return this.jobFails();
      case 'alert-fires':
        return this.alertFires();
      case 'weekly-post':
        return this.weeklyPost();
      case 'paste-link':
        return this.world.requests.perform({
          kind: 'type',
          text: 'Is https://docs.acme.dev/guides/webhooks still right about retries?',
        });
      case 'open-assistant':
        return openAssistant(this.world.requests, this.world.slack);
      default:
        throw new Error(`I know no scenario called “${name.slice(0, 40)}”; reload the page`);
    }
  }

  private async jobFails(): Promise<void> {
    this.world.docs.failNext = true;
    await this.world.requests.perform({
      kind: 'type',
      text: '/docs-agent Move the SDK pages under /sdks/v2',
    });
  }

  /** A search term starts to surge: the channel is subscribed to alerts, and the next check (2 s) alerts. */
  private async alertFires(): Promise<void> {
    const { slack, docs, requests } = this.world;
    const [term, hits] = SURGING[this.surged % SURGING.length] ?? SURGING[0];
    const round = Math.floor(this.surged / SURGING.length);
    const query = round === 0 ? term : `${term} v${round + 1}`;
    this.surged += 1;
    const before = botMessages(slack).length;
    docs.surges.set(query, hits);
    if (this.surged === 1) await requests.perform({ kind: 'type', text: '/docs-health alerts on' });
    await until('the alert', () =>
      botMessages(slack)
        .slice(before)
        .find((m) => says(m, query)),
    );
  }

  /**
   * A weekly post: scheduled (as a person would) for today's weekday a few minutes from now, UTC, and those
   * minutes skipped: the post covers the real last 7 days.
   */
  private async weeklyPost(): Promise<void> {
    const { slack, requests, timers } = this.world;
    const at = new Date(timers.now() + 3 * 60_000);
    const day = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'][
      at.getUTCDay()
    ];
    const time = `${String(at.getUTCHours()).padStart(2, '0')}:${String(at.getUTCMinutes()).padStart(2, '0')}`;
    const kind = this.weekly % 2 === 0 ? '/docs-views' : '/docs-health';
    const asked = slack.nextTs();
    this.weekly += 1;
    await requests.perform({ kind: 'type', text: `${kind} schedule ${day} ${time}` });
    await until('the schedule confirmed', () =>
      slack.messages.find((m) => m.ephemeral && m.text.includes(`at ${time}`) && m.ts > asked),
    );
    const posted = botMessages(slack).length;
    timers.advanceTo(at.getTime());
    await until('the weekly post', () =>
      botMessages(slack)
        .slice(posted)
        .find((m) => says(m, 'Weekly post set up by')),
    );
  }
}
