import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { type JobRecord, JobVersionConflictError } from '../../src/jobs/domain/job.js';
import { followPullRequest } from '../../src/jobs/pull-requests/follow-pull-request.js';
import type { PullRequestFollowDeps } from '../../src/jobs/pull-requests/ports.js';
import type { PullRequestState } from '../../src/jobs/pull-requests/pull-request.js';
import { SlackPullRequestNotices } from '../../src/slack/pull-request-notices.js';
import { followedRecord, idleQueue } from '../support/pull-request-fixtures.js';
import { recordingOutbox } from '../support/recording-outbox.js';
import { fakeJobStore } from './jobs/fake-job-store.js';

const logger = createLogger({ level: 'silent', secrets: [], destination: { write: () => undefined } });
const merged: PullRequestState = {
  state: 'merged',
  draft: false,
  review: 'none',
  checks: 'none',
  openedAt: 0,
  mergedAt: 1_700_000_000_000,
  mergedBy: 'octo-cat',
  closedAt: null,
  headSha: 'abc',
};

describe('the merge notice is posted once', () => {
  it('even when the record could not be saved after posting (another replica changed it): read again, not posted again', async () => {
    const { outbox, sent, settle } = recordingOutbox();
    const notices = new SlackPullRequestNotices(outbox);
    const records = new Map<string, JobRecord>();
    const record = followedRecord();
    records.set('job_1', record);
    const store = fakeJobStore(records);
    let saves = 0;
    const conflictOnce = {
      ...store,
      async saveJob(r: JobRecord) {
        saves += 1;
        // The save recording that the notice went out is refused once, as from a stale copy.
        if (saves === 2) throw new JobVersionConflictError(r.jobId, 1);
        return store.saveJob(r);
      },
    };
    const deps: PullRequestFollowDeps = {
      reader: { read: async () => merged },
      store: conflictOnce,
      queue: idleQueue(),
      notices,
      notifier: { updateCard: async () => undefined },
      outcomes: { merged: async () => undefined, unreadable: async () => undefined },
      clock: { now: () => 1 },
      logger,
      timing: { minMs: 1_000, maxMs: 10_000, maxAgeMs: 30 * 86_400_000 },
      webUrl: 'https://github.com',
    };
    await expect(followPullRequest(deps, 'job_1')).rejects.toBeInstanceOf(JobVersionConflictError);
    expect(await followPullRequest(deps, 'job_1')).toBeNull();
    expect(await followPullRequest(deps, 'job_1')).toBeNull();
    await settle();
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      key: 'pr-merged:job_1:0',
      target: { kind: 'post', channel: 'C1', threadTs: '1.0' },
    });
    expect(records.get('job_1')?.pullRequest).toMatchObject({ ended: 'merged', noticed: true });
  });
});
