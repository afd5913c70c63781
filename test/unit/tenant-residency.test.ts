import { describe, expect, it, vi } from 'vitest';
import { CoalescedRun } from '../../src/common/coalesced-run.js';
import { createLogger } from '../../src/common/logger.js';
import { ReplicaTicker } from '../../src/common/replica-ticker.js';
import {
  AbsentTenants,
  evictionsDue,
  PendingSync,
  scopesToEvict,
} from '../../src/composition/oauth/tenant-residency.js';

const resident = (usedAt: number, inFlight = 0) => ({ usedAt, inFlight });

describe('which scopes a replica evicts (issue 34)', () => {
  it('evicts the idle ones, never one serving a request', () => {
    const scopes: Array<[string, ReturnType<typeof resident>]> = [
      ['T0OLD', resident(0)],
      ['T0BUSY', resident(0, 1)],
      ['T0NEW', resident(900)],
    ];
    expect(scopesToEvict(scopes, 1_000, { idleMs: 500, maxResident: 10 })).toEqual(['T0OLD']);
  });

  it('evicts a scope built for background work alone sooner than one that served a request', () => {
    const scopes = [
      ['T0WELCOMED', { usedAt: 0 }], // woken for its welcome DM, nothing since
      ['T0USED', { usedAt: 0, servedAt: 0 }], // a person's command
      ['T0FOLLOW', { usedAt: 950 }], // a PR follow a moment ago
    ] as const;
    const limits = { idleMs: 600_000, backgroundIdleMs: 90, maxResident: 10 };
    expect(
      scopesToEvict(
        scopes.map(([t, r]) => [t, { ...r, inFlight: 0 }]),
        1_000,
        limits,
      ),
    ).toEqual(['T0WELCOMED']);
    // Never longer than the idle time itself, and the idle time when not set.
    const shorter = { idleMs: 50, backgroundIdleMs: 600_000, maxResident: 10 };
    expect(scopesToEvict([['T0WELCOMED', { usedAt: 900, inFlight: 0 }]], 1_000, shorter)).toEqual([
      'T0WELCOMED',
    ]);
    expect(
      scopesToEvict([['T0WELCOMED', { usedAt: 0, inFlight: 0 }]], 1_000, { idleMs: 2_000, maxResident: 10 }),
    ).toEqual([]);
  });

  it('beyond the cap, the least recently used go first, however fresh', () => {
    const scopes: Array<[string, ReturnType<typeof resident>]> = [
      ['T0A', resident(990)],
      ['T0B', resident(995, 2)],
      ['T0C', resident(996)],
      ['T0D', resident(999)],
    ];
    expect(scopesToEvict(scopes, 1_000, { idleMs: 60_000, maxResident: 2 })).toEqual(['T0A', 'T0C']);
  });

  it('says which evictions are for idleness (the replica keeps its hold) and which for room', () => {
    const scopes: Array<[string, ReturnType<typeof resident>]> = [
      ['T0IDLE', resident(0)],
      ['T0OLDEST', resident(990)],
      ['T0NEWER', resident(999)],
    ];
    expect(evictionsDue(scopes, 1_000, { idleMs: 500, maxResident: 1 })).toEqual([
      { tenant: 'T0IDLE', idle: true },
      { tenant: 'T0OLDEST', idle: false },
    ]);
  });

  it('remembers a team without an install for a moment, and forgets it when the directory changes', () => {
    let now = 0;
    const absent = new AbsentTenants(() => now);
    absent.add('T0NONE');
    expect(absent.has('T0NONE')).toBe(true);
    now = 2_001;
    expect(absent.has('T0NONE')).toBe(false);
    absent.add('T0NONE');
    absent.add('T0OTHER');
    absent.forget(['T0NONE']);
    expect(absent.has('T0NONE')).toBe(false);
    expect(absent.has('T0OTHER')).toBe(true);
    absent.forget('all');
    expect(absent.has('T0OTHER')).toBe(false);
  });

  it('re-reads the tenants the changes named, every held one when asked or when the net is due', () => {
    let now = 0;
    const pending = new PendingSync(() => now, 60_000);
    const held = ['T0A', 'T0B', 'T0C'];
    expect(pending.fullDue()).toBe(true);
    expect(pending.take(held)).toEqual(held); // at start: every one
    pending.add(['T0B', 'T0X']);
    expect(pending.fullDue()).toBe(false);
    expect(pending.take(held)).toEqual(['T0B']); // only those held here
    expect(pending.take(held)).toEqual([]);
    pending.add(['T0A']);
    pending.add('all');
    expect(pending.take(held)).toEqual(held);
    now = 60_000;
    expect(pending.fullDue()).toBe(true);
    expect(pending.take(held)).toEqual(held); // the net
  });
});

describe("a replica's one timer", () => {
  it('runs each registration on its period, never overlapping itself, and stops when none is left', async () => {
    vi.useFakeTimers();
    try {
      const ticker = new ReplicaTicker(createLogger({ level: 'silent', secrets: [] }));
      let runs = 0;
      let overlapping = 0;
      let inside = false;
      // Each run takes 150 ms on a 60 ms period: without the guard, two would overlap.
      const stop = ticker.every(60, async () => {
        if (inside) overlapping++;
        inside = true;
        runs++;
        await new Promise((resolve) => setTimeout(resolve, 150));
        inside = false;
      });
      await vi.advanceTimersByTimeAsync(700);
      stop();
      expect(runs).toBeGreaterThanOrEqual(2);
      expect(overlapping).toBe(0);
      expect(ticker.size()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a coalesced run started during another runs once more after it, for every caller', async () => {
    let runs = 0;
    let release = () => {};
    const firstHeld = new Promise<void>((resolve) => {
      release = resolve;
    });
    const gate = new CoalescedRun(async () => {
      runs++;
      if (runs === 1) await firstHeld;
    });
    const first = gate.run();
    const second = gate.run();
    const third = gate.run();
    release();
    await Promise.all([first, second, third]);
    expect(runs).toBe(2);
  });
});
