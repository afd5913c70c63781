import type { JobRecord } from '../../../src/jobs/domain/job.js';
import type { JobStore } from '../../../src/jobs/ports.js';

/** A JobStore on a Map: records copied in and out as a real store would; every claim granted. */
export function fakeJobStore(records: Map<string, JobRecord>): JobStore {
  return {
    getJob: async (id) => (records.has(id) ? structuredClone(records.get(id)) : undefined),
    saveJob: async (r) => void records.set(r.jobId, structuredClone(r)),
    linkThread: async () => undefined,
    findJobByThread: async () => undefined,
    listWatched: async () => [...records.values()].filter((r) => r.watching),
    claim: async () => true,
    release: async () => undefined,
    listByRequester: async () => [],
    setFollowing: async () => undefined,
    listFollowing: async () => [],
    mark: async () => undefined,
    isMarked: async () => false,
  };
}
