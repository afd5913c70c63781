import { FakeDocs } from '../test/support/fake-docs.js';
import { FakeSlack } from '../test/support/fake-slack.js';
import { postSigned, slashCommandBody } from '../test/support/slack-signing.js';
import { SIGNING_SECRET } from '../test/support/test-app.js';
import { startBenchApp } from './harness.js';
import type { Row } from './stats.js';

/**
 * Slack Web API calls per job (issue 16, item 2): one typical job, from the command to the terminal reply.
 * `/docs-agent <instruction>` in a channel; the job runs for a while (several polls); midway the platform
 * reports its branch; then it completes with a PR. Every Web API call the bot makes in between is counted
 * by method on the fake Slack (response_url posts are not Web API calls and are listed apart). Polling is
 * sped up (POLL_INTERVAL_MS 50 ms) so the job's life takes seconds; the calls do not depend on the rate.
 */
export const CALLS_TARGET = 5;
const POLLS_BEFORE_BRANCH = 4;
const POLLS_BEFORE_END = 4;

const waitUntil = async (what: string, done: () => boolean, timeoutMs = 30_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`calls per job: timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

export async function runCallsPerJob(): Promise<{
  rows: Row[];
  summary: { calls: number; responses: number };
}> {
  const slack = await FakeSlack.start();
  const docs = await FakeDocs.start();
  const app = await startBenchApp(
    { slackUrl: slack.url, slackApiUrl: slack.apiUrl, docsUrl: docs.url },
    {
      LOG_LEVEL: 'warn',
      POLL_INTERVAL_MS: '50',
      POLL_MAX_INTERVAL_MS: '200',
      SLACK_CHANNEL_POST_INTERVAL_MS: '0',
    },
  );
  try {
    // What the app calls once per process (auth.test at start and for the first request's authorization,
    // cached after) is not the job's: a `list` first, as in a running app.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const warm = await postSigned(
      app.url,
      slashCommandBody({ command: '/docs-agent', text: 'list', response_url: slack.responseUrl('list') }),
      SIGNING_SECRET,
    );
    if (warm.status !== 200) throw new Error(`calls per job: list ack ${warm.status}`);
    const atStart = slack.calls.length;
    const ack = await postSigned(
      app.url,
      slashCommandBody({
        command: '/docs-agent',
        text: 'Document the new 429 response on the jobs API',
        response_url: slack.responseUrl('job'),
      }),
      SIGNING_SECRET,
    );
    if (ack.status !== 200) throw new Error(`calls per job: ack ${ack.status}`);
    await waitUntil('the job to be created', () => docs.jobs.size === 1);
    const job = docs.onlyJob;
    const polls = () =>
      docs.requests.filter((r) => r.method === 'GET' && r.path.endsWith(`/job/${job.id}`)).length;
    await waitUntil('polls of the running job', () => polls() >= POLLS_BEFORE_BRANCH);
    docs.setRef(job.id, `docs-agent/${job.id}`);
    const atBranch = polls();
    await waitUntil('polls after the branch change', () => polls() >= atBranch + POLLS_BEFORE_END);
    docs.complete(job.id);
    const prLink = docs.onlyJob.prLink!;
    await waitUntil('the PR link in the thread', () =>
      slack.calls.some((c) => c.method === 'chat.postMessage' && JSON.stringify(c.args).includes(prLink)),
    );
    // Anything the bot still does after the reply (reactions, a last card update) belongs to the job too.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const jobCalls = slack.calls.slice(atStart);
    const byMethod = new Map<string, number>();
    for (const call of jobCalls) byMethod.set(call.method, (byMethod.get(call.method) ?? 0) + 1);
    const rows: Row[] = [...byMethod].map(([method, count]) => ({ 'Web API method': method, calls: count }));
    const calls = jobCalls.length;
    rows.push({ 'Web API method': `total (in order: ${jobCalls.map((c) => c.method).join(', ')})`, calls });
    rows.push({ 'Web API method': '(once per process, before the job: not counted)', calls: atStart });
    rows.push({ 'Web API method': '(response_url posts, not Web API)', calls: slack.responses.length });
    return { rows, summary: { calls, responses: slack.responses.length } };
  } finally {
    await app.stop();
    await slack.close();
    await docs.close();
  }
}

export function callsVerdict(s: { calls: number }): string[] {
  return [
    `Slack Web API calls for one typical job: ${s.calls}: target ≤ ${CALLS_TARGET} ${
      s.calls <= CALLS_TARGET ? 'MET' : 'MISSED (the slack-tiers branch reduces these)'
    }`,
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { table } = await import('./stats.js');
  const { rows, summary } = await runCallsPerJob();
  console.log(table(rows));
  for (const line of callsVerdict(summary)) console.log(line);
  process.exit(0);
}
