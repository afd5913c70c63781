import { describe, expect, it } from 'vitest';
import { type JobRecord, JobVersionConflictError, newJobRecord } from '../../src/jobs/domain/job.js';
import type { JobStore } from '../../src/jobs/ports.js';

/** Builds a fresh, empty store (its own namespace) and says how to dispose of it. */
export type JobStoreFactory = () => Promise<{ store: JobStore; close(): Promise<void> }>;

export function record(overrides: Partial<JobRecord> = {}): JobRecord {
  return {
    ...newJobRecord(
      {
        jobId: 'job_1',
        teamId: 'T1',
        channelId: 'C1',
        threadTs: '1700000000.000100',
        cardTs: '1700000000.000100',
        requesterId: 'U1',
        prompt: 'Document the 429 response',
        origin: 'command',
        status: 'active',
        repository: 'acme/docs',
        ref: null,
        model: null,
        prLink: null,
      },
      1_000,
    ),
    ...overrides,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The `JobStore` contract: every implementation must pass these same tests. */
export function jobStoreContract(create: JobStoreFactory): void {
  async function withStore(test: (store: JobStore) => Promise<void>): Promise<void> {
    const { store, close } = await create();
    try {
      await test(store);
    } finally {
      await close();
    }
  }

  describe('JobStore contract', () => {
    it('saves and reads back a record, as a copy', () =>
      withStore(async (store) => {
        const saved = record({ prLink: 'https://github.com/acme/docs/pull/1', ref: 'docs/x' });
        await store.saveJob(saved);
        const read = await store.getJob('job_1');
        expect(read).toEqual(saved);
        expect(read?.version).toBe(1);
        read!.status = 'changed';
        expect((await store.getJob('job_1'))?.status).toBe('active');
      }));

    it('keeps no credential shape: one in a record is saved as [redacted] (issue 44)', () =>
      withStore(async (store) => {
        const key = 'svc_live_0123456789abcdefghij';
        const token = 'ghp_0123456789abcdefABCDEF0123456789abcd';
        const saved = record({ prompt: `Use ${key} please`, ref: `docs/${token}` });
        await store.saveJob(saved);
        const read = await store.getJob('job_1');
        expect(read?.prompt).toBe('Use [redacted] please');
        expect(read?.ref).toBe('docs/[redacted]');
        expect(JSON.stringify(await store.listByRequester('T1', 'U1', 10))).not.toContain(key);
        expect(saved.version).toBe(1);
      }));

    it('keeps the index of followed pull requests: added once, removed, listed', () =>
      withStore(async (store) => {
        await store.setFollowing('job_1', true);
        await store.setFollowing('job_1', true);
        await store.setFollowing('job_2', true);
        expect((await store.listFollowing()).sort()).toEqual(['job_1', 'job_2']);
        await store.setFollowing('job_1', false);
        expect(await store.listFollowing()).toEqual(['job_2']);
      }));

    it('says "not found" only for a job it never saw', () =>
      withStore(async (store) => {
        expect(await store.getJob('nope')).toBeUndefined();
        expect(await store.findJobByThread('C1', '1.2')).toBeUndefined();
      }));

    it('overwrites a record on save', () =>
      withStore(async (store) => {
        const saved = record();
        await store.saveJob(saved);
        await store.saveJob(Object.assign(saved, { status: 'completed', repliedGeneration: 1 }));
        expect(await store.getJob('job_1')).toMatchObject({
          status: 'completed',
          repliedGeneration: 1,
          version: 2,
        });
      }));

    it('refuses a save from a stale copy (version check), and keeps the newer record', () =>
      withStore(async (store) => {
        await store.saveJob(record());
        const a = (await store.getJob('job_1'))!;
        const b = (await store.getJob('job_1'))!;
        a.generation = 2;
        await store.saveJob(a);
        b.watching = false;
        await expect(store.saveJob(b)).rejects.toBeInstanceOf(JobVersionConflictError);
        await expect(store.saveJob(b)).rejects.toMatchObject({ code: 'version_conflict' });
        expect(b.version).toBe(1);
        expect(await store.getJob('job_1')).toMatchObject({ generation: 2, watching: true, version: 2 });
        expect((await store.listWatched()).map((r) => r.jobId)).toEqual(['job_1']);
        // A new record for a job that is already stored is a stale copy too.
        await expect(store.saveJob(record())).rejects.toMatchObject({ code: 'version_conflict' });
      }));

    it('lets exactly one of several concurrent saves of the same version win', () =>
      withStore(async (store) => {
        await store.saveJob(record());
        const copies = await Promise.all([1, 2, 3, 4, 5].map(() => store.getJob('job_1')));
        const results = await Promise.allSettled(
          copies.map((copy, i) => store.saveJob({ ...copy!, prompt: `writer ${i}` })),
        );
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        const winner = results.findIndex((r) => r.status === 'fulfilled');
        expect(await store.getJob('job_1')).toMatchObject({ prompt: `writer ${winner}`, version: 2 });
      }));

    it('links threads to jobs', () =>
      withStore(async (store) => {
        await store.linkThread('C1', '1.1', 'job_1');
        await store.linkThread('C2', '1.1', 'job_2');
        expect(await store.findJobByThread('C1', '1.1')).toBe('job_1');
        expect(await store.findJobByThread('C2', '1.1')).toBe('job_2');
        expect(await store.findJobByThread('C1', '9.9')).toBeUndefined();
      }));

    it('lists watched jobs oldest first, optionally for one channel, and forgets unwatched ones', () =>
      withStore(async (store) => {
        await store.saveJob(record({ jobId: 'b', channelId: 'C1', createdAt: 2 }));
        await store.saveJob(record({ jobId: 'a', channelId: 'C1', createdAt: 1 }));
        await store.saveJob(record({ jobId: 'c', channelId: 'C2', createdAt: 3 }));
        await store.saveJob(record({ jobId: 'd', channelId: 'C1', createdAt: 4, watching: false }));
        expect((await store.listWatched()).map((r) => r.jobId)).toEqual(['a', 'b', 'c']);
        expect((await store.listWatched('C1')).map((r) => r.jobId)).toEqual(['a', 'b']);

        await store.saveJob(
          record({ jobId: 'a', channelId: 'C1', createdAt: 1, watching: false, version: 1 }),
        );
        expect((await store.listWatched()).map((r) => r.jobId)).toEqual(['b', 'c']);
        await store.saveJob(
          record({ jobId: 'd', channelId: 'C1', createdAt: 4, watching: true, version: 1 }),
        );
        expect((await store.listWatched('C1')).map((r) => r.jobId)).toEqual(['b', 'd']);
      }));

    it("lists one person's jobs newest first, from any surface, nobody else's, after later saves too", () =>
      withStore(async (store) => {
        await store.saveJob(record({ jobId: 'old', createdAt: 10, origin: 'command' }));
        await store.saveJob(record({ jobId: 'new', createdAt: 30, origin: 'reaction', watching: false }));
        await store.saveJob(record({ jobId: 'mid', createdAt: 20, origin: 'app_home', channelId: 'C9' }));
        await store.saveJob(record({ jobId: 'bob', createdAt: 40, requesterId: 'U2' }));
        await store.saveJob(record({ jobId: 'other-team', createdAt: 50, teamId: 'T2' }));
        // A later save (status change) neither duplicates nor drops the entry.
        const mid = (await store.getJob('mid'))!;
        await store.saveJob(Object.assign(mid, { status: 'completed' }));
        const mine = await store.listByRequester('T1', 'U1', 10);
        expect(mine.map((r) => r.jobId)).toEqual(['new', 'mid', 'old']);
        expect(mine[1]).toMatchObject({ status: 'completed', version: 2 });
        expect((await store.listByRequester('T1', 'U1', 2)).map((r) => r.jobId)).toEqual(['new', 'mid']);
        expect((await store.listByRequester('T1', 'U2', 10)).map((r) => r.jobId)).toEqual(['bob']);
        expect(await store.listByRequester('T1', 'U3', 10)).toEqual([]);
        expect((await store.listByRequester('T2', 'U1', 10)).map((r) => r.jobId)).toEqual(['other-team']);
      }));

    it("keeps only the newest jobs of a person's index", () =>
      withStore(async (store) => {
        for (let i = 0; i < 105; i++) await store.saveJob(record({ jobId: `j${i}`, createdAt: 1_000 + i }));
        const listed = await store.listByRequester('T1', 'U1', 200);
        expect(listed).toHaveLength(100);
        expect(listed[0]?.jobId).toBe('j104');
        expect(listed.at(-1)?.jobId).toBe('j5');
      }));

    it('marks a key with expiry, overwriting the expiry', () =>
      withStore(async (store) => {
        expect(await store.isMarked('home:U1')).toBe(false);
        await store.mark('home:U1', 60);
        expect(await store.isMarked('home:U1')).toBe(true);
        expect(await store.isMarked('home:U2')).toBe(false);
        await store.mark('home:U1', 60_000);
        await sleep(120);
        expect(await store.isMarked('home:U1')).toBe(true);
        await store.mark('home:U2', 40);
        await sleep(120);
        expect(await store.isMarked('home:U2')).toBe(false);
      }));

    it('claims a key for the first caller only, until released', () =>
      withStore(async (store) => {
        const results = await Promise.all([1, 2, 3, 4, 5].map(() => store.claim('reply:job_1:1', 60_000)));
        expect(results.filter(Boolean)).toHaveLength(1);
        expect(await store.claim('reply:job_1:2', 60_000)).toBe(true);
        await store.release('reply:job_1:1');
        expect(await store.claim('reply:job_1:1', 60_000)).toBe(true);
        expect(await store.claim('reply:job_1:1', 60_000)).toBe(false);
      }));

    it('lets a claim expire after its time to live', () =>
      withStore(async (store) => {
        expect(await store.claim('event:Ev1', 40)).toBe(true);
        expect(await store.claim('event:Ev1', 40)).toBe(false);
        await sleep(120);
        expect(await store.claim('event:Ev1', 40)).toBe(true);
      }));
  });
}
