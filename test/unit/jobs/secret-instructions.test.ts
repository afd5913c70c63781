import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/common/logger.js';
import { ProjectDirectory } from '../../../src/common/projects.js';
import type { JobRecord } from '../../../src/jobs/domain/job.js';
import { JobService } from '../../../src/jobs/job-service.js';
import type { JobServiceDeps } from '../../../src/jobs/use-cases/deps.js';
import { fakeJobStore } from './fake-job-store.js';

const TOKEN = 'ghp_0123456789abcdefABCDEF0123456789abcd';

/** Every port records each call by name: a refused instruction must leave the list empty. */
function recording<T extends object>(name: string, calls: string[], real: Partial<T> = {}): T {
  return new Proxy(real as T, {
    get(target, method) {
      const own = (target as Record<string | symbol, unknown>)[method];
      return (...args: unknown[]) => {
        calls.push(`${name}.${String(method)}`);
        return typeof own === 'function' ? own(...args) : Promise.resolve(undefined);
      };
    },
  });
}

function harness() {
  const calls: string[] = [];
  const prompts: string[] = [];
  const lines: string[] = [];
  const records = new Map<string, JobRecord>();
  const api = {
    createJob: async (prompt: string) => {
      prompts.push(prompt);
      return { id: 'job_1', status: 'active', repository: null, ref: null, model: null, prLink: null };
    },
  };
  const deps = {
    projects: new ProjectDirectory('proj_test'),
    quotaFor: () => recording('quota', calls, { take: async () => ({ ok: true }) }),
    apiFor: () => recording('api', calls, api),
    store: recording('store', calls, fakeJobStore(records)),
    notifier: recording('notifier', calls, { postStartingCard: async () => '1.0001' }),
    queue: recording('queue', calls),
    clock: { now: () => 1_000_000 },
    logger: createLogger({
      level: 'debug',
      secrets: [],
      destination: { write: (l: string) => lines.push(l) },
    }),
    poll: { minMs: 1000, maxMs: 10_000, maxAgeMs: 3_600_000 },
    handovers: recording('handovers', calls),
  } as unknown as JobServiceDeps;
  return { service: new JobService(deps), calls, prompts, lines, records };
}

const request = {
  teamId: 'T1',
  channelId: 'C1',
  threadTs: null,
  requesterId: 'U1',
  origin: 'command',
} as const;

describe('the start-job and follow-up use cases refuse a credential first', () => {
  it('a start with a token in its instruction reads, stores, posts and sends nothing', async () => {
    const h = harness();
    const result = await h.service.start({ ...request, prompt: `use ${TOKEN} to open the PR` });
    expect(result).toEqual({ ok: false, stage: 'secret', kind: 'github' });
    expect(h.calls).toEqual([]);
    expect(h.lines.join('')).not.toContain(TOKEN.slice(4));
  });

  it('a follow-up with a key in it is refused before the record is even read', async () => {
    const h = harness();
    const result = await h.service.followUp({ jobId: 'job_1', prompt: 'key: svc_live_0123456789abcdef' });
    expect(result).toEqual({ ok: false, reason: 'secret', kind: 'docs' });
    expect(h.calls).toEqual([]);
  });

  it('quoted context is other people’s words: its credentials are cut out, the job still starts', async () => {
    const h = harness();
    const result = await h.service.start({
      ...request,
      prompt: 'Document the token setup',
      context: `> @U2 wrote: my token is ${TOKEN}`,
    });
    expect(result.ok).toBe(true);
    expect(h.prompts).toHaveLength(1);
    expect(h.prompts[0]).toContain('my token is [redacted]');
    expect(h.prompts[0]).not.toContain(TOKEN);
  });
});
