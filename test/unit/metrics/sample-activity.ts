import type { Metrics } from '../../../src/metrics/metrics.js';

/**
 * One workspace's worth of activity, `times` over: every recorder a runtime calls, and the scrape-time sources
 * (watched jobs, quotas, this month's feedback) with one unreachable quota, as a real store may be.
 */
export function recordSampleActivity(metrics: Metrics, times = 1): void {
  for (let i = 0; i < times; i++) {
    metrics.apiCall('POST', 'ok');
    metrics.apiCall('GET', 'ok');
    metrics.apiCall('GET', 'ok');
    metrics.apiCall('POST', 'unauthorized');
    metrics.slackError('chat.postMessage', 'ratelimited');
    metrics.slackError('chat.update', 'not_in_channel');
    metrics.delivery('posted', 'reply');
    metrics.delivery('retry', 'final');
    metrics.jobStarted('started');
    metrics.jobStarted('create_failed');
    metrics.followUp('sent');
    metrics.polled('running');
    metrics.jobFinished('completed');
    metrics.feedbackRecorded('useful', 'new');
  }
  metrics.setSources({
    watchedJobs: async () => [
      ...Array.from({ length: 2 * times }, () => ({ status: 'running' })),
      ...Array.from({ length: times }, () => ({ status: 'queued' })),
    ],
    quotas: {
      agent_jobs: async () => 100 - times,
      analytics: async () => {
        throw new Error('store unreachable');
      },
    },
    feedbackThisMonth: async () => ({ month: '2026-11', rated: 3 * times, useful: 2 * times }),
  });
}
