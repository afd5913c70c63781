import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/common/logger.js';
import type { HandedOverStart, StartHandovers } from '../../../src/jobs/ports.js';
import { handOverIfStopping, takeOverStarts } from '../../../src/jobs/use-cases/start-handover.js';
import type { StartJobRequest, StartJobResult } from '../../../src/jobs/use-cases/start-job.js';

/* Issue 35: which job starts a stopping replica hands over, and how another replica finishes them. */

const logger = createLogger({ level: 'silent', secrets: [] });
const command: StartJobRequest = {
  teamId: 'T1',
  channelId: 'C1',
  threadTs: null,
  requesterId: 'U1',
  prompt: 'Document the limits',
  origin: 'command',
};

function handovers(fail = false) {
  const handed: HandedOverStart[] = [];
  const done: string[] = [];
  const store: StartHandovers = {
    handOver: async (start) => {
      if (fail) throw new Error('redis down');
      handed.push(start);
    },
    take: async (limit) => handed.splice(0, limit),
    done: async (id) => {
      done.push(id);
    },
  };
  return { store, handed, done };
}

const stoppingError = Object.assign(new Error('not confirmed'), { code: 'card_not_confirmed' });

describe('handing a job start over', () => {
  it('hands over a stopping slash command, with its card ts or under its card key', async () => {
    const h = handovers();
    const deps = { handovers: h.store, stopping: () => true, logger };
    expect(await handOverIfStopping(deps, command, 's1', { ts: '1.2' })).toBe(true);
    expect(
      await handOverIfStopping(deps, { ...command, handover: { id: 's2' } }, 's2', { error: stoppingError }),
    ).toBe(true);
    expect(h.handed).toEqual([
      { id: 's1', request: command, cardTs: '1.2' },
      { id: 's2', request: command },
    ]);
  });

  it('goes on here when not stopping, in memory mode, for other origins, for real refusals, or if Redis fails', async () => {
    const h = handovers();
    const refused = Object.assign(new Error('refused'), { code: 'not_in_channel' });
    const cases: Array<[Parameters<typeof handOverIfStopping>[0], StartJobRequest, object]> = [
      [{ handovers: h.store, stopping: () => false, logger }, command, { ts: '1.2' }],
      [{ stopping: () => true, logger }, command, { ts: '1.2' }],
      [
        { handovers: h.store, stopping: () => true, logger },
        { ...command, origin: 'mention' },
        { ts: '1.2' },
      ],
      [{ handovers: h.store, stopping: () => true, logger }, command, { error: refused }],
      [{ handovers: handovers(true).store, stopping: () => true, logger }, command, { ts: '1.2' }],
    ];
    for (const [deps, request, card] of cases)
      expect(await handOverIfStopping(deps, request, 's', card as { ts: string })).toBe(false);
    expect(h.handed).toEqual([]);
  });

  it('another replica finishes it with the same id; a card refused for good ends it and says so; a stopping one takes none', async () => {
    const h = handovers();
    const asked = { ...command, responseUrl: 'https://hooks.slack.com/commands/T1/1/abc' };
    h.handed.push({ id: 's1', request: command, cardTs: '1.2' }, { id: 's2', request: asked });
    const told: unknown[][] = [];
    const notifier = { tellStartFailed: async (...args: unknown[]) => void told.push(args) };
    const seen: StartJobRequest[] = [];
    const start = async (request: StartJobRequest): Promise<StartJobResult> => {
      seen.push(request);
      return request.handover?.id === 's2'
        ? { ok: false, stage: 'card', error: new Error('channel_not_found') }
        : { ok: false, stage: 'state', error: new Error('busy') };
    };
    const running = new Set<Promise<void>>();
    expect(await takeOverStarts({ handovers: h.store, stopping: () => true, logger }, start, running)).toBe(
      0,
    );
    const deps = { handovers: h.store, stopping: () => false, logger, notifier };
    expect(await takeOverStarts(deps, start, running)).toBe(2);
    await Promise.all([...running]);
    expect(seen.map((r) => r.handover)).toEqual([{ id: 's1', cardTs: '1.2' }, { id: 's2' }]);
    // s1 could not reach the state store: it stays handed over (due again after the hold); s2 is gone.
    expect(h.done).toEqual(['s2']);
    // The person who asked for s2 is told, through their command's response_url.
    expect(told).toEqual([['https://hooks.slack.com/commands/T1/1/abc', 's2', expect.any(Error)]]);
    expect(running.size).toBe(0);
  });
});
