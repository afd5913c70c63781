import type { AccessPolicy } from '../common/access-policy.js';
import type { Clock } from '../common/clock.js';
import type { Logger } from '../common/logger.js';
import type { Outbox } from '../delivery/ports.js';
import type { AssistantThreadStore } from '../jobs/assistant-thread.js';
import type { JobRecord } from '../jobs/domain/job.js';
import type { JobService } from '../jobs/job-service.js';
import type { JobNotifier, JobStore } from '../jobs/ports.js';
import { AssistantCalls } from '../slack/assistant-calls.js';
import { AssistantJobNotifier } from '../slack/assistant-job-notifier.js';
import { ChannelAccess, type ChannelAccessOptions } from '../slack/channel-access.js';
import { cardKey } from '../slack/job-notifier.js';
import type { AgentSessions, AssistantSurface } from '../slack/listeners/deps.js';
import type { SlackGateway } from '../slack/slack-gateway.js';

export interface AssistantWiring {
  gateway: SlackGateway;
  /** Answers in assistant threads are owed like any other message. */
  outbox: Outbox;
  store: JobStore;
  threads: AssistantThreadStore;
  /** The card notifier every other job uses. */
  cards: JobNotifier;
  clock: Clock;
  logger: Logger;
  /** The allowlists, checked with membership for the channel open beside the container. */
  access: Pick<AccessPolicy, 'check'>;
  /** App Home's listener of job changes (the card notifier's `onJobChanged`). */
  onJobChanged?: (record: JobRecord) => void;
  /** How long a stream is used before it is handed over (SLACK_STREAM_HANDOVER_MS). */
  streamHandoverMs?: number;
  /** OAuth mode: the tenant's part of the process's one bounded cache. */
  channelAccessCache?: ChannelAccessOptions['cache'];
}

/**
 * Slack's AI app container: the job notifier in front of the card notifier (streams and status lines for
 * jobs asked for in assistant threads), and the surface its listeners use (once the job service exists;
 * the listeners' deps build it at the first assistant request).
 */
export function wireAssistant(w: AssistantWiring) {
  const calls = new AssistantCalls(w.gateway, w.outbox);
  const logger = w.logger.child({ component: 'assistant' });
  const notifier = new AssistantJobNotifier(w.cards, calls, w.store, w.clock, logger, {
    ...(w.onJobChanged ? { onJobChanged: w.onJobChanged } : {}),
    ...(w.streamHandoverMs ? { streamHandoverMs: w.streamHandoverMs } : {}),
  });
  // The listeners' parts, built when the first assistant request reaches them (`surface`).
  const channelAccess = () =>
    new ChannelAccess({
      access: w.access,
      members: { conversations: { members: (args) => w.gateway.channelMembers(args) } },
      cache: w.channelAccessCache,
    });
  const sessions = (): AgentSessions => ({
    job: (jobId) => w.store.getJob(jobId),
    stopping: (record) => notifier.stopping(record),
    stopped: (record, slackStopped, before) => notifier.stopped(record, slackStopped, before),
    idle: (channelId, threadTs) => notifier.idle(channelId, threadTs),
    following: (record) => notifier.updateCard(record, w.clock.now()),
    reply: (key, channelId, threadTs, message) => calls.reply(key, channelId, threadTs, message),
    async replace(channelId, ts, message) {
      await w.outbox.owe({
        key: cardKey(channelId, ts),
        target: { kind: 'update', channel: channelId, ts },
        payload: message,
        priority: 'reply',
        seq: Number.MAX_SAFE_INTEGER,
      });
    },
  });
  return {
    notifier,
    surface: (jobs: Pick<JobService, 'listRequested'>): AssistantSurface => ({
      threads: w.threads,
      calls,
      async answer(channelId, threadTs, message, key) {
        await w.outbox.deliver({
          key,
          target: { kind: 'post', channel: channelId, threadTs },
          payload: message,
          priority: 'reply',
        });
      },
      listMine: (teamId, userId) => jobs.listRequested(teamId, userId),
      channelAccess: channelAccess(),
      sessions: sessions(),
    }),
    /** Stops refreshing status lines (shutdown). */
    close: () => notifier.close(),
  };
}
