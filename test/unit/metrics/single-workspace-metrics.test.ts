import { describe, expect, it } from 'vitest';
import { Metrics } from '../../../src/metrics/metrics.js';
import { recordSampleActivity } from './sample-activity.js';

/**
 * Single-workspace mode's /metrics, pinned: dashboards and alerts are built on these names, labels and
 * values, so OAuth mode's aggregation must not change what one workspace's `Metrics` renders.
 */
const EXPECTED = `# HELP docs_agent_docs_api_requests_total Upstream docs-API requests (each attempt), by HTTP method and outcome code (ok or the error code)
# TYPE docs_agent_docs_api_requests_total counter
docs_agent_docs_api_requests_total{method="POST",code="ok"} 1
docs_agent_docs_api_requests_total{method="GET",code="ok"} 2
docs_agent_docs_api_requests_total{method="POST",code="unauthorized"} 1

# HELP docs_agent_slack_api_errors_total Failed Slack Web API calls (each attempt), by API method and Slack error code
# TYPE docs_agent_slack_api_errors_total counter
docs_agent_slack_api_errors_total{method="chat.postMessage",code="ratelimited"} 1
docs_agent_slack_api_errors_total{method="chat.update",code="not_in_channel"} 1

# HELP docs_agent_deliveries_total Attempts of messages the bot owes (outbox), by outcome (posted, found after an unknown outcome, retry, abandoned) and priority
# TYPE docs_agent_deliveries_total counter
docs_agent_deliveries_total{outcome="posted",priority="reply"} 1
docs_agent_deliveries_total{outcome="retry",priority="final"} 1

# HELP docs_agent_job_starts_total Requests to start an agent job, by outcome
# TYPE docs_agent_job_starts_total counter
docs_agent_job_starts_total{outcome="started"} 1
docs_agent_job_starts_total{outcome="create_failed"} 1

# HELP docs_agent_follow_ups_total Follow-up messages to agent jobs, by outcome
# TYPE docs_agent_follow_ups_total counter
docs_agent_follow_ups_total{outcome="sent"} 1

# HELP docs_agent_polls_total Polls of watched agent jobs, by outcome
# TYPE docs_agent_polls_total counter
docs_agent_polls_total{outcome="running"} 1

# HELP docs_agent_jobs_finished_total Agent jobs (generations) seen reaching a terminal status, by status
# TYPE docs_agent_jobs_finished_total counter
docs_agent_jobs_finished_total{status="completed"} 1

# HELP docs_agent_job_feedback_total Clicks on a job result's feedback buttons, by vote (useful, not_useful) and change (new, changed, same)
# TYPE docs_agent_job_feedback_total counter
docs_agent_job_feedback_total{vote="useful",change="new"} 1

# HELP docs_agent_pull_requests_rated_this_month Pull requests rated this calendar month (UTC) by rating: useful when 👍 outnumber 👎 (shared state)
# TYPE docs_agent_pull_requests_rated_this_month gauge
docs_agent_pull_requests_rated_this_month{rating="useful"} 2
docs_agent_pull_requests_rated_this_month{rating="not_useful"} 1

# HELP docs_agent_watched_jobs Agent jobs currently watched, by last known status (from the shared state store)
# TYPE docs_agent_watched_jobs gauge
docs_agent_watched_jobs{status="running"} 2
docs_agent_watched_jobs{status="queued"} 1

# HELP docs_agent_quota_remaining Units left in a rolling-hour budget (agent_jobs: per project; analytics: per organisation)
# TYPE docs_agent_quota_remaining gauge
docs_agent_quota_remaining{budget="agent_jobs"} 99
`;

describe('single-workspace Metrics.render()', () => {
  it('renders exactly what it rendered before OAuth mode (names, help, labels, values, order)', async () => {
    const metrics = new Metrics({ defaultMetrics: false });
    recordSampleActivity(metrics);
    const { contentType, body } = await metrics.render();
    expect(contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(body).toBe(EXPECTED);
  });

  it('puts the process metrics first and the same docs_agent_ block after them by default', async () => {
    const metrics = new Metrics();
    recordSampleActivity(metrics);
    const { body } = await metrics.render();
    expect(body).toContain('# TYPE process_cpu_user_seconds_total counter');
    expect(body).toContain('# TYPE nodejs_eventloop_lag_seconds gauge');
    const ours = body.indexOf('# HELP docs_agent_');
    expect(ours).toBeGreaterThan(0);
    expect(body.slice(ours)).toBe(EXPECTED);
  });
});
