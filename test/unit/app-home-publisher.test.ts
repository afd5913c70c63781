import type { HomeView } from '@slack/types';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { ProcessLru } from '../../src/common/process-lru.js';
import { type JobRecord, newJobRecord } from '../../src/jobs/domain/job.js';
import {
  AppHomePublisher,
  HOME_DEBOUNCE_MS,
  HOME_PUBLISH_LOCK_MS,
} from '../../src/slack/app-home-publisher.js';
import { createMemoryJobStore, StateUnavailableError } from '../../src/state/keyv-job-store.js';

const logger = createLogger({ level: 'silent', secrets: [] });

function job(jobId: string, requesterId: string, overrides: Partial<JobRecord> = {}): JobRecord {
  return {
    ...newJobRecord(
      {
        jobId,
        teamId: 'T1',
        channelId: 'C1',
        threadTs: '1.000100',
        cardTs: '1.000100',
        requesterId,
        prompt: `prompt of ${jobId}`,
        origin: 'command',
        status: 'active',
        repository: null,
        ref: null,
        model: null,
        prLink: null,
      },
      1_000,
    ),
    ...overrides,
  };
}

function harness() {
  const store = createMemoryJobStore(logger);
  const published: Array<{ userId: string; view: HomeView }> = [];
  const home = new AppHomePublisher({
    store,
    schedules: async () => [],
    budgets: async () => [{ label: 'Agent jobs', left: 3, limit: 100 }],
    publish: async (userId, view) => void published.push({ userId, view }),
    logger,
  });
  return { store, home, published };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('AppHomePublisher', () => {
  it('publishes on open; then several changes of the user’s jobs make one publish after the debounce', async () => {
    const { store, home, published } = harness();
    await store.saveJob(job('a', 'U1'));
    await home.opened('T1', 'U1');
    expect(published).toHaveLength(1);
    expect(JSON.stringify(published[0]?.view)).toContain('prompt of a');

    home.jobChanged(job('a', 'U1', { status: 'completed', prLink: 'https://github.com/x/y/pull/1' }));
    home.jobChanged(
      job('a', 'U1', { status: 'completed', prLink: 'https://github.com/x/y/pull/1', watching: false }),
    );
    home.jobChanged(job('b', 'U1'));
    await vi.advanceTimersByTimeAsync(HOME_DEBOUNCE_MS - 1);
    expect(published).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(published).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(HOME_DEBOUNCE_MS * 5);
    expect(published).toHaveLength(2);
  });

  it('keeps nothing of its refreshes once they are over (a tenant whose job ended holds no tables for them)', async () => {
    const { store, home, published } = harness();
    await store.saveJob(job('a', 'U1'));
    await home.opened('T1', 'U1');
    home.jobChanged(job('a', 'U1', { status: 'completed', prLink: 'https://github.com/x/y/pull/1' }));
    expect(home.inFlight()).toEqual({ pending: 1, running: 0, tables: 1 });
    await vi.advanceTimersByTimeAsync(HOME_DEBOUNCE_MS);
    await vi.waitFor(() => expect(published).toHaveLength(2));
    await vi.waitFor(() => expect(home.inFlight()).toEqual({ pending: 0, running: 0, tables: 0 }));
    // And a later change is refreshed as before.
    home.jobChanged(job('b', 'U1'));
    await vi.advanceTimersByTimeAsync(HOME_DEBOUNCE_MS);
    await vi.waitFor(() => expect(published).toHaveLength(3));
    await vi.waitFor(() => expect(home.inFlight().tables).toBe(0));
  });

  it("keeps jobs' shown states in the cache it is handed, no table of its own, and still tells a change from a repeat", async () => {
    const store = createMemoryJobStore(logger);
    const published: string[] = [];
    const lru = new ProcessLru(100);
    const home = new AppHomePublisher({
      store,
      schedules: async () => [],
      budgets: async () => undefined,
      publish: async (userId) => void published.push(userId),
      logger,
      hashes: lru.view('T1/home-hashes'),
      seen: lru.view('T1/home-seen'),
    });
    await store.saveJob(job('a', 'U1'));
    await home.opened('T1', 'U1');
    await vi.advanceTimersByTimeAsync(HOME_DEBOUNCE_MS);
    const done = job('a', 'U1', { status: 'completed', prLink: 'https://github.com/x/y/pull/1' });
    home.jobChanged(done);
    await vi.advanceTimersByTimeAsync(HOME_DEBOUNCE_MS);
    await vi.waitFor(() => expect(published).toHaveLength(3));
    // The same ended state again (a card refresh): nothing to publish.
    home.jobChanged(done);
    await vi.advanceTimersByTimeAsync(HOME_DEBOUNCE_MS * 2);
    expect(published).toHaveLength(3);
    await vi.waitFor(() => expect(home.inFlight().tables).toBe(0));
    const own = Object.values(home).filter((v) => v instanceof Map || v instanceof Set);
    expect(own).toEqual([]);
    expect(lru.size).toBeGreaterThan(0);
  });

  it('publishes nothing for someone who never opened Home, nor for a refresh that changed nothing shown', async () => {
    const { home, published } = harness();
    home.jobChanged(job('a', 'U2'));
    await vi.advanceTimersByTimeAsync(HOME_DEBOUNCE_MS * 2);
    expect(published).toHaveLength(0);

    await home.opened('T1', 'U1');
    home.jobChanged(job('c', 'U1'));
    await vi.advanceTimersByTimeAsync(HOME_DEBOUNCE_MS);
    expect(published).toHaveLength(2);
    // The same state again (a card refresh for the elapsed time): nothing to republish.
    home.jobChanged(job('c', 'U1'));
    await vi.advanceTimersByTimeAsync(HOME_DEBOUNCE_MS * 2);
    expect(published).toHaveLength(2);
  });

  it('says on Home that the state store is down instead of showing no jobs', async () => {
    const { store, home, published } = harness();
    vi.spyOn(store, 'listByRequester').mockRejectedValue(
      new StateUnavailableError(new Error('ECONNREFUSED')),
    );
    await home.opened('T1', 'U1');
    expect(published).toHaveLength(1);
    expect(JSON.stringify(published[0]?.view)).toContain("can't reach my storage");
    expect(JSON.stringify(published[0]?.view)).toContain('Open this tab again in a minute');
  });

  it('drops pending refreshes on close', async () => {
    const { home, published } = harness();
    await home.opened('T1', 'U1');
    home.jobChanged(job('a', 'U1'));
    await home.close();
    await vi.advanceTimersByTimeAsync(HOME_DEBOUNCE_MS * 2);
    home.jobChanged(job('b', 'U1'));
    await vi.advanceTimersByTimeAsync(HOME_DEBOUNCE_MS * 2);
    expect(published).toHaveLength(1);
  });

  /** The user opened Home (their mark is set) and the re-read after the open is done. */
  async function openedAndSettled(h: ReturnType<typeof harness>) {
    await h.home.opened('T1', 'U1');
    await vi.advanceTimersByTimeAsync(HOME_DEBOUNCE_MS * 2);
  }

  // Checked: without the re-read after the open, job b is never published (only one publish, without it).
  it('reads once more after the open: a job saved just after the open’s read is shown', async () => {
    const { store, home, published } = harness();
    await store.saveJob(job('a', 'U1'));
    await home.opened('T1', 'U1');
    await store.saveJob(job('b', 'U1'));
    await vi.advanceTimersByTimeAsync(HOME_DEBOUNCE_MS);
    expect(JSON.stringify(published.at(-1)?.view)).toContain('prompt of b');
  });

  // Checked: without the per-user publish claim the slow, older read was published last (no job b).
  it('a view built from an older read never replaces a newer one', async () => {
    const h = harness();
    const { store, home, published } = h;
    await store.saveJob(job('a', 'U1'));
    await openedAndSettled(h);
    const read = store.listByRequester.bind(store);
    let slowDone!: () => void;
    const slow = new Promise<void>((resolve) => {
      slowDone = resolve;
    });
    let reads = 0;
    vi.spyOn(store, 'listByRequester').mockImplementation(async (...args) => {
      const jobs = await read(...args);
      if (++reads === 1) await slow; // this read returns what it saw before job b was saved
      return jobs;
    });
    const older = home.publishNow('T1', 'U1');
    await vi.advanceTimersByTimeAsync(0);
    await store.saveJob(job('b', 'U1'));
    const newer = home.publishNow('T1', 'U1');
    await vi.advanceTimersByTimeAsync(0);
    slowDone();
    await Promise.all([older, newer]);
    await vi.advanceTimersByTimeAsync(HOME_DEBOUNCE_MS * 2);
    expect(JSON.stringify(published.at(-1)?.view)).toContain('prompt of b');
  });

  // Checked: publishing without the previous hash, the holder whose claim ran out overwrote the newer view.
  it('a publish whose claim ran out is refused by its hash, then reads and publishes the newer state', async () => {
    const store = createMemoryJobStore(logger);
    // Slack's views.publish as documented: with a hash, refused unless it is the current view's.
    let current: { hash: string; view: HomeView } | undefined;
    let n = 0;
    const publish = async (_userId: string, view: HomeView, hash?: string) => {
      if (hash !== undefined && current && hash !== current.hash)
        throw Object.assign(new Error('hash_conflict'), { code: 'hash_conflict' });
      current = { hash: `h${++n}`, view };
      return current.hash;
    };
    const replica = () =>
      new AppHomePublisher({ store, schedules: async () => [], budgets: async () => [], publish, logger });
    const [a, b] = [replica(), replica()];
    await store.saveJob(job('a', 'U1'));
    await a.opened('T1', 'U1'); // a now holds the hash of the view on screen
    await vi.advanceTimersByTimeAsync(HOME_DEBOUNCE_MS * 2);
    const read = store.listByRequester.bind(store);
    let stalled!: () => void;
    const stall = new Promise<void>((resolve) => {
      stalled = resolve;
    });
    let reads = 0;
    vi.spyOn(store, 'listByRequester').mockImplementation(async (...args) => {
      const jobs = await read(...args);
      if (++reads === 1) await stall; // replica a's read, stalled past its claim
      return jobs;
    });
    const stale = a.publishNow('T1', 'U1');
    await vi.advanceTimersByTimeAsync(HOME_PUBLISH_LOCK_MS + 1);
    await store.saveJob(job('b', 'U1'));
    await b.publishNow('T1', 'U1');
    expect(JSON.stringify(current?.view)).toContain('prompt of b');
    stalled();
    await stale;
    expect(JSON.stringify(current?.view)).toContain('prompt of b');
    await Promise.all([a.close(), b.close()]);
  });
});
