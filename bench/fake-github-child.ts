import type { FakeDocs } from '../test/support/fake-docs.js';
import { FakeGitHub } from '../test/support/fake-github.js';
import type { FakeSlack } from '../test/support/fake-slack.js';

/**
 * The fake GitHub of the fakes process (`bench/fakes-process.ts`), tied to the fake platform: a job
 * completed on schedule gets its PR opened on GitHub at the same moment, and the times that matter (PR
 * opened, the thread reply carrying its link reaching Slack) are kept for the doorbell's real-time run.
 */
export interface PrTiming {
  jobId: string;
  link: string;
  createdAt: number;
  /** When the first `chat.postMessage` carrying the link reached the fake Slack (null: not yet). */
  repliedAt: number | null;
  /** Job GETs (polls) of this job on the fake platform. */
  polls: number;
}

export interface GitHubReport {
  prs: PrTiming[];
  /** Reads of the pulls list by answer: 200 (counted against the limit), 304 (free), others. */
  list: { ok: number; notModified: number; other: number };
}

export async function attachFakeGitHub(docs: FakeDocs, slack: FakeSlack) {
  const github = await FakeGitHub.start();
  github.addRepo('acme', 'docs');
  const prs = new Map<string, PrTiming>();
  const polls = new Map<string, number>();
  const pushRequest = docs.requests.push.bind(docs.requests);
  docs.requests.push = (...items) => {
    for (const r of items) {
      const id = r.method === 'GET' ? /\/job\/([^/]+)$/.exec(r.path)?.[1] : undefined;
      if (id) polls.set(id, (polls.get(id) ?? 0) + 1);
    }
    return pushRequest(...items);
  };
  const pushCall = slack.calls.push.bind(slack.calls);
  slack.calls.push = (...items) => {
    for (const call of items) {
      if (call.method !== 'chat.postMessage') continue;
      const text = JSON.stringify(call.args);
      for (const pr of prs.values())
        if (pr.repliedAt === null && text.includes(pr.link)) pr.repliedAt = Date.now();
    }
    return pushCall(...items);
  };
  let nextNumber = 100;
  return {
    url: github.url,
    /**
     * Completes each job after its delay, opening its PR on GitHub at the same moment from the job's branch
     * (`docs-agent/<job>`); with `reportBranch` the platform reports that branch a second into the job.
     */
    completeAfter(jobs: Array<{ jobId: string; afterMs: number }>, reportBranch: boolean): void {
      for (const { jobId, afterMs } of jobs) {
        const branch = `docs-agent/${jobId}`;
        if (reportBranch) setTimeout(() => docs.setRef(jobId, branch), 1_000).unref();
        setTimeout(() => {
          const number = nextNumber++;
          const link = `https://github.com/acme/docs/pull/${number}`;
          docs.complete(jobId, link);
          github.addPull('acme', 'docs', number, {
            head: { sha: `${number}`.padStart(40, '0'), ref: branch },
          });
          prs.set(link, { jobId, link, createdAt: Date.now(), repliedAt: null, polls: 0 });
        }, afterMs).unref();
      }
    },
    report(): GitHubReport {
      const list = github.requestsTo(/^\/repos\/acme\/docs\/pulls$/);
      return {
        prs: [...prs.values()].map((pr) => ({ ...pr, polls: polls.get(pr.jobId) ?? 0 })),
        list: {
          ok: list.filter((r) => r.status === 200).length,
          notModified: list.filter((r) => r.status === 304).length,
          other: list.filter((r) => r.status !== 200 && r.status !== 304).length,
        },
      };
    },
    close: () => github.close(),
  };
}
