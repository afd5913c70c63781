import { loadavg } from 'node:os';
import { createClient } from '@redis/client';
import { FAKE_GITHUB_TOKEN } from '../test/support/fake-github.js';
import { startRedisServer } from '../test/support/redis-server.js';
import { busiestCommands, RedisProbe } from './deployment-redis.js';
import { FakesProcess } from './fakes-process.js';
import { startOAuthBenchApp, workspace } from './tenant-apps.js';

/*
 * Issue 43, "no work per resident tenant": Redis commands a second with N tenants whose scopes are resident
 * in one replica (each installed through the real flow and served one `/docs-agent help`) while nobody uses
 * the bot. With GitHub configured (the operator's token for `acme`), so each scope also follows PRs and runs
 * the doorbell. The window starts once the due index is empty (the welcome DMs delivered and their duplicate
 * sweeps over), so it measures what quiet residency costs, not owed work.
 *
 *   npx tsx bench/quiet-tenants.ts          (QUIET_TENANTS=200, QUIET_WINDOW_S=10)
 */

const TENANTS = Number(process.env.QUIET_TENANTS ?? 200);
const WINDOW_S = Number(process.env.QUIET_WINDOW_S ?? 10);
const DUE_INDEX = 'docs-agent:{due}:tenants';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const redis = await startRedisServer();
  const fakes = await FakesProcess.start();
  const probe = await RedisProbe.open(redis.url);
  const looks = createClient({ url: redis.url });
  await looks.connect();
  const app = await startOAuthBenchApp(fakes, {
    REDIS_URL: redis.url,
    LOG_LEVEL: 'info',
    GITHUB_TOKEN: FAKE_GITHUB_TOKEN,
    GITHUB_TOKEN_OWNERS: 'acme',
    GITHUB_API_URL: fakes.urls.githubUrl ?? '',
  });
  try {
    const teams = Array.from({ length: TENANTS }, (_, i) => workspace(i));
    for (const team of teams) await app.install(team);
    for (const team of teams) {
      const answer = await app.command(team.teamId, 'help');
      if (!answer.includes('/docs-agent')) throw new Error(`${team.teamId} was not served: ${answer}`);
    }
    const resident = teams.filter((t) => app.started.has(t.teamId)).length;
    // Owed work (welcome DMs and their sweeps) settles first: then nothing is due.
    const settledBy = Date.now() + 120_000;
    while (Number(await looks.zCard(DUE_INDEX)) > 0 && Date.now() < settledBy) await sleep(500);
    const due = Number(await looks.zCard(DUE_INDEX));
    const before = await probe.commandCalls();
    await sleep(WINDOW_S * 1_000);
    const after = await probe.commandCalls();
    let calls = 0;
    for (const [name, n] of after) calls += n - (before.get(name) ?? 0);
    // The probe's own: one INFO for the second look (the first was counted before it).
    const perSecond = (calls - 1) / WINDOW_S;
    console.log(
      JSON.stringify({
        tenants: TENANTS,
        resident,
        dueAtWindowStart: due,
        windowS: WINDOW_S,
        redisCommandsPerSecond: Number(perSecond.toFixed(1)),
        busiest: busiestCommands(before, after, WINDOW_S, 8),
        loadAverage: loadavg().map((l) => Number(l.toFixed(2))),
      }),
    );
  } finally {
    await app.stop();
    await probe.close();
    await looks.close();
    await fakes.stop();
    await redis.stop();
  }
}

await main();
