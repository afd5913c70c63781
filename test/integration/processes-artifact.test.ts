import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freshDist } from '../support/artifact-dist.js';
import type { BotProcess } from '../support/bot-process.js';
import { bot, fakes, redisServer, stopProcesses } from '../support/process-helpers.js';
import { tenantCommand } from '../support/tenant-actions.js';
import { ALPHA, installThrough, registerTenants } from '../support/tenant-bots.js';

/*
 * The artifact, not the sources: `node dist/main.js` (the image's command) as a child process in both modes,
 * against the in-test fake Slack and docs platform. It answers a signed command, says it is ready and exits 0
 * on SIGTERM. Every other process suite runs src/main.ts through tsx, which would not notice a build that
 * leaves something out.
 */

beforeAll(freshDist, 180_000);
afterEach(stopProcesses);

type Ack = { status: number; body: string };

function expectHelp(ack: Ack) {
  expect(ack.status).toBe(200);
  const body = JSON.parse(ack.body) as { response_type: string; blocks: unknown[] };
  expect(body.response_type).toBe('ephemeral');
  expect(JSON.stringify(body.blocks)).toContain('/docs-agent &lt;instruction&gt;');
}

async function expectReady(process_: BotProcess, state: string) {
  const response = await fetch(`${process_.url}/readyz`);
  expect(response.status).toBe(200);
  expect(await response.json()).toMatchObject({ status: 'ready', checks: { state } });
}

async function expectCleanStop(process_: BotProcess) {
  await process_.stop();
  expect(await process_.exited).toEqual({ code: 0, signal: null });
  expect(process_.stderr()).toBe('');
}

describe('the built artifact, node dist/main.js', () => {
  it('single-workspace mode on memory state: answers /docs-agent help, is ready, exits 0 on SIGTERM', async () => {
    const { slack, docs } = await fakes();
    const process_ = await bot({ name: 'artifact-single', slack, docs, artifact: true });
    expectHelp(await process_.command({ text: 'help' }));
    await expectReady(process_, 'in-memory');
    await expectCleanStop(process_);
  }, 60_000);

  it('OAuth mode on Redis: installs a workspace, answers its /docs-agent help, is ready, exits 0 on SIGTERM', async () => {
    const { slack, docs } = await fakes();
    registerTenants(slack, docs);
    const redis = await redisServer();
    const process_ = await bot({
      name: 'artifact-oauth',
      slack,
      docs,
      oauth: true,
      redisUrl: redis.url,
      artifact: true,
      startTimeoutMs: 40_000,
    });
    await installThrough(process_, slack, ALPHA);
    expectHelp(await tenantCommand(process_, slack, ALPHA, 'help'));
    await expectReady(process_, 'ok');
    await expectCleanStop(process_);
  }, 90_000);
});
