import fc from 'fast-check';
import type { AdapterSet } from '../../src/state/adapters.js';
import { record } from '../contract/job-store.contract.js';

/**
 * One tenant's event as it reaches the state adapters: writes carry the tenant's tag in their value, reads
 * say every tag they saw. Keys come from small pools shared by both tenants, so they collide all the time.
 */
export type StoreOp =
  | { kind: 'saveJob'; job: number; team: 'T1' | null; watching: boolean }
  | { kind: 'getJob'; job: number }
  | { kind: 'linkThread'; thread: number; job: number }
  | { kind: 'findJobByThread'; thread: number }
  | { kind: 'listWatched' }
  | { kind: 'listByRequester' }
  | { kind: 'setFollowing'; job: number }
  | { kind: 'listFollowing' }
  | { kind: 'claim'; key: number }
  | { kind: 'release'; key: number }
  | { kind: 'mark'; key: number }
  | { kind: 'isMarked'; key: number }
  | { kind: 'recordDelivery'; key: number }
  | { kind: 'getDelivery'; key: number }
  | { kind: 'dueDeliveries' }
  | { kind: 'putSchedule'; channel: number }
  | { kind: 'getSchedule'; channel: number }
  | { kind: 'listSchedules' }
  | { kind: 'claimOccurrence'; key: number }
  | { kind: 'putEvidence'; id: number }
  | { kind: 'getEvidence'; id: number }
  | { kind: 'vote'; job: number; useful: boolean }
  | { kind: 'tallies' }
  | { kind: 'saveAssistantThread'; thread: number }
  | { kind: 'getAssistantThread'; thread: number }
  | { kind: 'cacheSet'; key: number }
  | { kind: 'cacheGet'; key: number }
  | { kind: 'subscribeAlerts'; channel: number }
  | { kind: 'alertSubscriptions' }
  | { kind: 'claimAlert'; channel: number }
  | { kind: 'getAlert'; channel: number }
  | { kind: 'takeJobBudget' }
  | { kind: 'takeUserBudget' }
  | { kind: 'takeAnalyticsBudget' };

const pool = fc.integer({ min: 0, max: 2 });

export const storeOp: fc.Arbitrary<StoreOp> = fc.oneof(
  fc.record({
    kind: fc.constant('saveJob' as const),
    job: pool,
    team: fc.constantFrom('T1' as const, null),
    watching: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('getJob' as const), job: pool }),
  fc.record({ kind: fc.constant('linkThread' as const), thread: pool, job: pool }),
  fc.record({ kind: fc.constant('findJobByThread' as const), thread: pool }),
  fc.constant({ kind: 'listWatched' as const }),
  fc.constant({ kind: 'listByRequester' as const }),
  fc.record({ kind: fc.constant('setFollowing' as const), job: pool }),
  fc.constant({ kind: 'listFollowing' as const }),
  fc.record({ kind: fc.constantFrom('claim' as const, 'release' as const), key: pool }),
  fc.record({ kind: fc.constantFrom('mark' as const, 'isMarked' as const), key: pool }),
  fc.record({ kind: fc.constantFrom('recordDelivery' as const, 'getDelivery' as const), key: pool }),
  fc.constant({ kind: 'dueDeliveries' as const }),
  fc.record({ kind: fc.constantFrom('putSchedule' as const, 'getSchedule' as const), channel: pool }),
  fc.constant({ kind: 'listSchedules' as const }),
  fc.record({ kind: fc.constant('claimOccurrence' as const), key: pool }),
  fc.record({ kind: fc.constantFrom('putEvidence' as const, 'getEvidence' as const), id: pool }),
  fc.record({ kind: fc.constant('vote' as const), job: pool, useful: fc.boolean() }),
  fc.constant({ kind: 'tallies' as const }),
  fc.record({
    kind: fc.constantFrom('saveAssistantThread' as const, 'getAssistantThread' as const),
    thread: pool,
  }),
  fc.record({ kind: fc.constantFrom('cacheSet' as const, 'cacheGet' as const), key: pool }),
  fc.record({ kind: fc.constantFrom('subscribeAlerts' as const, 'claimAlert' as const), channel: pool }),
  fc.record({ kind: fc.constant('getAlert' as const), channel: pool }),
  fc.constant({ kind: 'alertSubscriptions' as const }),
  fc.constantFrom(
    { kind: 'takeJobBudget' as const },
    { kind: 'takeUserBudget' as const },
    { kind: 'takeAnalyticsBudget' as const },
  ),
);

/** Events of two tenants (0 and 1), in one interleaving. */
export const interleaving = fc.array(fc.record({ tenant: fc.constantFrom(0, 1), op: storeOp }), {
  minLength: 1,
  maxLength: 40,
});

/** What one op answered (compared with the same tenant's events alone) and every tenant tag it read. */
export interface OpResult {
  answer: unknown;
  tags: string[];
}

const HOUR = 3_600_000;
const jobId = (n: number) => `job_${n}`;
const ts = (n: number) => `1700000000.00010${n}`;
const TAG = /tenant:([A-Za-z0-9]+)/g;

/** Every tenant tag anywhere in a value (records, payloads, JSON). */
export function tagsIn(value: unknown): string[] {
  return [...(JSON.stringify(value ?? null) ?? '').matchAll(TAG)].map((m) => m[1]!);
}

/** Runs one tenant's op against its adapter set; `tag` marks every value it writes. */
export async function runOp(adapters: AdapterSet, tag: string, op: StoreOp, now: number): Promise<OpResult> {
  const mine = `tenant:${tag}`;
  const read = (answer: unknown): OpResult => ({ answer, tags: tagsIn(answer) });
  const { jobStore, deliveryStore, scheduleStore, evidenceStore, feedbackStore } = adapters;
  switch (op.kind) {
    case 'saveJob': {
      const current = await jobStore.getJob(jobId(op.job));
      const next = record({
        jobId: jobId(op.job),
        teamId: op.team,
        prompt: mine,
        watching: op.watching,
        createdAt: now,
        activeSince: now,
        updatedAt: now,
        ...(current?.version === undefined ? {} : { version: current.version }),
      });
      await jobStore.saveJob(next);
      return { answer: 'saved', tags: tagsIn(current) };
    }
    case 'getJob':
      return read(await jobStore.getJob(jobId(op.job)));
    case 'linkThread':
      await jobStore.linkThread('C1', ts(op.thread), `${jobId(op.job)}-${mine}`);
      return read('linked');
    case 'findJobByThread':
      return read(await jobStore.findJobByThread('C1', ts(op.thread)));
    case 'listWatched':
      return read((await jobStore.listWatched()).map((r) => r.prompt).sort());
    case 'listByRequester':
      return read((await jobStore.listByRequester('T1', 'U1', 10)).map((r) => r.prompt).sort());
    case 'setFollowing':
      await jobStore.setFollowing(`${jobId(op.job)}-${mine}`, true);
      return read('following');
    case 'listFollowing':
      return read((await jobStore.listFollowing()).sort());
    case 'claim':
      return read(await jobStore.claim(`claim:${op.key}`, HOUR));
    case 'release':
      await jobStore.release(`claim:${op.key}`);
      return read('released');
    case 'mark':
      await jobStore.mark(`mark:${op.key}`, HOUR);
      return read('marked');
    case 'isMarked':
      return read(await jobStore.isMarked(`mark:${op.key}`));
    case 'recordDelivery': {
      const key = `notice:${op.key}`;
      const target = { kind: 'post' as const, channel: 'C1', threadTs: null };
      const stored = await deliveryStore.record(
        { key, target, payload: { text: mine }, priority: 'reply' },
        now,
      );
      return read(stored.payload);
    }
    case 'getDelivery':
      return read((await deliveryStore.get(`notice:${op.key}`))?.payload);
    case 'dueDeliveries': {
      const keys = (await deliveryStore.due(now, 50)).sort();
      const payloads = await Promise.all(keys.map(async (key) => (await deliveryStore.get(key))?.payload));
      return read({ keys, payloads });
    }
    case 'putSchedule':
      await scheduleStore.put({
        kind: 'health',
        channelId: `C${op.channel}`,
        cron: '0 9 * * 1',
        timeZone: 'UTC',
        createdBy: mine,
        createdAt: now,
        source: 'command',
      });
      return read('put');
    case 'getSchedule':
      return read(await scheduleStore.get(`health:C${op.channel}`));
    case 'listSchedules':
      return read((await scheduleStore.list()).map((s) => s.createdBy).sort());
    case 'claimOccurrence':
      return read(await scheduleStore.claim(`occurrence:${op.key}`, HOUR));
    case 'putEvidence':
      await evidenceStore.put(`ev${op.id}`, JSON.stringify({ page: mine }), HOUR);
      return read('put');
    case 'getEvidence':
      return read(await evidenceStore.get(`ev${op.id}`));
    case 'vote':
      return read(
        await feedbackStore.vote(jobId(op.job), 'U1', op.useful ? 'useful' : 'not_useful', '2026-11'),
      );
    case 'tallies':
      return read((await feedbackStore.tallies('2026-11')).sort((a, b) => a.jobId.localeCompare(b.jobId)));
    case 'saveAssistantThread':
      await adapters.assistantThreads.save({
        channelId: 'D1',
        threadTs: ts(op.thread),
        userId: 'U1',
        contextChannelId: mine,
      });
      return read('saved');
    case 'getAssistantThread':
      return read(await adapters.assistantThreads.get('D1', ts(op.thread)));
    case 'cacheSet':
      await adapters.analyticsCache.set(`views:proj:${op.key}`, { rows: [mine] }, HOUR);
      return read('set');
    case 'cacheGet':
      return read(await adapters.analyticsCache.get(`views:proj:${op.key}`));
    case 'subscribeAlerts':
      await adapters.alertStore.subscribe({
        channelId: `C${op.channel}`,
        sensitivity: 'normal',
        createdBy: mine,
        createdAt: now,
      });
      return read('subscribed');
    case 'alertSubscriptions':
      return read((await adapters.alertStore.subscriptions()).map((s) => s.createdBy).sort());
    case 'claimAlert': {
      const alert = { signalId: 'zero:q', deliveryKey: `alert:${mine}`, count: 3, alertedAt: now };
      return read(
        await adapters.alertStore.claimAlert(`C${op.channel}`, { ...alert, evidenceRef: mine }, HOUR),
      );
    }
    case 'getAlert':
      return read(await adapters.alertStore.alert(`C${op.channel}`, 'zero:q'));
    case 'takeJobBudget':
      return read(await adapters.agentJobQuotaFor('proj_shared').take());
    case 'takeUserBudget':
      return read(await adapters.agentJobUserQuotaFor('proj_shared', 'U1').take());
    case 'takeAnalyticsBudget':
      return read(await adapters.analyticsBudget.take());
  }
}
