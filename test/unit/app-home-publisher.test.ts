import type { HomeView } from '@slack/types';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { type JobRecord, newJobRecord } from '../../src/jobs/domain/job.js';
import { AppHomePublisher, HOME_DEBOUNCE_MS } from '../../src/slack/app-home-publisher.js';
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
    expect(JSON.stringify(published[0]?.view)).toContain("can't reach my state store");
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
});
