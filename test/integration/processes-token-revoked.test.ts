import { afterEach, describe, expect, it } from 'vitest';
import { bot, fakes, stopProcesses } from '../support/process-helpers.js';
import { eventEnvelope } from '../support/slack-events.js';

/*
 * Issue 27: single-workspace mode whose token Slack revokes or rejects while running logs one clear line
 * and exits non-zero within 30 s, so the orchestrator restarts it (and start-up names the problem) or
 * alerts; before, it stayed up and failed every call.
 */

afterEach(stopProcesses);

const within = async <T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'> =>
  Promise.race([promise, new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), ms))]);

const fatalLines = (logs: Array<Record<string, unknown>>) =>
  logs.filter((l) => l.level === 60 && String(l.msg).includes('Slack no longer accepts the bot'));

describe('a revoked or rejected bot token while running (single-workspace mode)', () => {
  it('Slack answers token_revoked on a call: one fatal line, exit code 2 within 30 s', async () => {
    const { slack, docs } = await fakes();
    const proc = await bot({ name: 'revoked', slack, docs });
    slack.inject('chat.postMessage', { kind: 'error', error: 'token_revoked' }, 50);
    const started = Date.now();
    await proc.command({ text: 'Document the export API' });
    const exit = await within(proc.exited, 30_000);
    expect(exit).not.toBe('timeout');
    expect(exit).toMatchObject({ code: 2 });
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(fatalLines(proc.logs)).toHaveLength(1);
    expect(String(fatalLines(proc.logs)[0]?.msg)).toContain('token_revoked');
  }, 60_000);

  it('app_uninstalled: one fatal line, exit code 2 within 30 s; a user token revoked changes nothing', async () => {
    const { slack, docs } = await fakes();
    const proc = await bot({ name: 'uninstalled', slack, docs });
    await proc.event(
      eventEnvelope({ type: 'tokens_revoked', tokens: { oauth: ['U0ALICE'] }, event_ts: '1.000001' }),
    );
    expect(await within(proc.exited, 1500)).toBe('timeout');
    await proc.event(eventEnvelope({ type: 'app_uninstalled', event_ts: '1.000002' }));
    const exit = await within(proc.exited, 30_000);
    expect(exit).toMatchObject({ code: 2 });
    expect(String(fatalLines(proc.logs)[0]?.msg)).toContain('uninstalled');
  }, 60_000);
});
