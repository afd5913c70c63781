import { describe, expect, it, vi } from 'vitest';
import { AppError } from '../../../src/common/errors.js';
import type { AlertSubscription } from '../../../src/insights/ports.js';
import { type DocsHealthDeps, docsHealthCommand } from '../../../src/slack/listeners/commands/docs-health.js';
import { access, allText, answers, CHANNEL, only, recordingLogger, slashCommand } from './fakes.js';

const NOW = Date.UTC(2026, 10, 26, 12);

function setup(options: { alerts?: boolean; failing?: boolean; allowed?: boolean } = {}) {
  let current: AlertSubscription | undefined;
  const fail = () => {
    if (options.failing) throw new AppError('state_unavailable', 'redis down');
  };
  const alerts = {
    intervalMs: 3_600_000,
    subscribe: vi.fn(
      async (channelId: string, userId: string, sensitivity: AlertSubscription['sensitivity']) => {
        fail();
        const previous = current;
        current = { channelId, sensitivity, createdBy: userId, createdAt: NOW };
        return { subscription: current, previous };
      },
    ),
    unsubscribe: vi.fn(async () => {
      fail();
      const had = current !== undefined;
      current = undefined;
      return had;
    }),
    status: vi.fn(async () => {
      fail();
      return current;
    }),
    muteSignal: vi.fn(async () => {}),
  };
  const { logger } = recordingLogger();
  const deps: DocsHealthDeps = {
    access: options.allowed === false ? access({ channelIds: ['C0OTHER'] }) : access(),
    logger,
    limits: { analyticsPerHour: 100 },
    health: {
      reports: { now: () => NOW } as never,
      weekly: {} as never,
      siteUrl: undefined,
      ...(options.alerts === false ? {} : { alerts }),
    },
  };
  const run = async (text: string) => {
    const { ack, respond } = answers();
    await docsHealthCommand(deps)({ command: slashCommand('/docs-health', text), ack, respond });
    return { ack, respond };
  };
  return { run, alerts };
}

describe('/docs-health alerts', () => {
  it('turns alerts on (with a sensitivity) in the channel, shows the state, and turns them off', async () => {
    const t = setup();
    expect(allText(only((await t.run('alerts')).respond))).toContain('alerts are off in this channel');
    const on = allText(only((await t.run('alerts on sensitivity high')).respond));
    expect(t.alerts.subscribe).toHaveBeenCalledWith(CHANNEL, expect.any(String), 'high');
    expect(on).toContain('sensitivity *high*');
    expect(on).toContain('every hour');
    expect(allText(only((await t.run('alerts on')).respond))).toContain('(was high)');
    expect(allText(only((await t.run('alerts')).respond))).toContain(
      'alerts are on in this channel, sensitivity *normal*',
    );
    expect(allText(only((await t.run('alerts off')).respond))).toContain('alerts are off in this channel');
    expect(allText(only((await t.run('alerts off')).respond))).toContain('were not on');
  });

  it('refuses unreadable text naming the token, and someone the channel refuses, before touching the store', async () => {
    const t = setup();
    expect(allText(only((await t.run('alerts on extreme')).respond))).toContain('extreme');
    const refused = setup({ allowed: false });
    expect(allText(only((await refused.run('alerts on')).ack))).not.toContain('alerts are on');
    expect(refused.alerts.subscribe).not.toHaveBeenCalled();
    expect(t.alerts.subscribe).not.toHaveBeenCalled();
  });

  it('says so when alerts are not set up or the store is down', async () => {
    expect(allText(only((await setup({ alerts: false }).run('alerts on')).ack))).toContain('not set up');
    const down = allText(only((await setup({ failing: true }).run('alerts on')).respond));
    expect(down.length).toBeGreaterThan(20);
    expect(down).not.toContain('redis down');
  });
});
