import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { Deliveries } from '../../src/delivery/deliveries.js';
import type { DeliverySender } from '../../src/delivery/ports.js';
import { type JobRecord, newJobRecord } from '../../src/jobs/domain/job.js';
import { wantedSignal } from '../../src/jobs/domain/job-signal.js';
import { JobSignalFollower } from '../../src/slack/job-signals.js';
import { MemoryDeliveryStore } from '../../src/state/memory/memory-delivery-store.js';

const logger = createLogger({ level: 'silent', secrets: [] });

function record(fields: Partial<JobRecord> = {}): JobRecord {
  return {
    ...newJobRecord(
      {
        jobId: 'job_1',
        teamId: null,
        channelId: 'C1',
        threadTs: '1.000001',
        cardTs: '1.000002',
        sourceTs: '1.000001',
        requesterId: 'U1',
        prompt: 'tidy',
        origin: 'mention',
        status: 'active',
        repository: null,
        ref: null,
        model: null,
        prLink: null,
      },
      1_000,
    ),
    ...fields,
  };
}

const done = (fields: Partial<JobRecord> = {}) =>
  record({ watching: false, status: 'completed', prLink: 'https://github.com/a/b/pull/1', ...fields });

describe('wantedSignal: from the record alone', () => {
  it('running, PR, problem; nothing without a source message', () => {
    expect(wantedSignal(record())).toBe('running');
    expect(wantedSignal(done())).toBe('pull_request');
    expect(wantedSignal(done({ prLink: null }))).toBe('problem');
    expect(wantedSignal(done({ status: 'failed' }))).toBe('problem');
    expect(wantedSignal(done({ status: 'archived' }))).toBe('problem');
    expect(wantedSignal(record({ watching: false, watchEnded: 'expired' }))).toBe('problem');
    expect(wantedSignal(done({ sourceTs: undefined }))).toBeNull();
  });
});

describe('JobSignalFollower', () => {
  /** The follower with a real outbox in memory and a sender that applies reactions to one message. */
  function setup() {
    const shown = new Set<string>();
    let peak = 0;
    const sender: DeliverySender = {
      async send(_key, _priority, _target, lease) {
        const d = await lease();
        if (d?.target.kind !== 'reactions') return { sent: false as const };
        const { names, managed } = d.target;
        for (const name of managed.filter((n) => !names.includes(n))) shown.delete(name);
        for (const name of names) shown.add(name);
        peak = Math.max(peak, shown.size);
        return { sent: true as const, delivery: d, ts: undefined };
      },
      lookup: async () => undefined,
      removeDuplicates: async () => 0,
    };
    const outbox = new Deliveries({ store: new MemoryDeliveryStore(), sender, logger });
    const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
    return { follower: new JobSignalFollower(outbox, logger), shown, peak: () => peak, settle };
  }

  it('latest state wins: an older version handed in after a newer one changes nothing', async () => {
    const { follower, shown, settle } = setup();
    follower.jobChanged(done({ version: 3 }));
    await settle();
    follower.jobChanged(record({ version: 2 }));
    await settle();
    expect([...shown]).toEqual(['white_check_mark']);
  });

  it('a follow-up after ✅ shows 👀 again and then ⚠️ if that run fails, one at a time', async () => {
    const { follower, shown, peak, settle } = setup();
    follower.jobChanged(record({ version: 1 }));
    await settle();
    follower.jobChanged(done({ version: 2 }));
    await settle();
    follower.jobChanged(record({ version: 3, generation: 2 }));
    await settle();
    expect([...shown]).toEqual(['eyes']);
    follower.jobChanged(done({ version: 4, generation: 2, status: 'failed' }));
    await settle();
    expect([...shown]).toEqual(['warning']);
    expect(peak()).toBe(1);
  });

  it('jobs without a source message owe nothing', async () => {
    const { follower, shown, settle } = setup();
    follower.jobChanged(done({ sourceTs: undefined, version: 5 }));
    await settle();
    expect(shown.size).toBe(0);
  });
});
