import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { getHeapSpaceStatistics, getHeapStatistics, writeHeapSnapshot } from 'node:v8';
import { postSigned, slashCommandBody } from '../test/support/slack-signing.js';
import { seededTeam } from './deployment-redis.js';
import { AllocationSites } from './heap-alloc-sites.js';
import { createDocsAgent, createLogger, loadConfig, secretsOf } from './product.js';

/**
 * bench/scope-heap.ts, the measured side: the OAuth-mode app in a process of its own (plain JavaScript,
 * bundled as `node dist/main.js` runs; or under tsx when asked), so its heap is the app's alone. Each seeded
 * tenant sends one signed `/docs-agent help`, which builds its scope as production does (work `job`: one
 * `/docs-agent <instruction>`, a job on the platform; before each measure the parent completes the step's
 * jobs and answers once their PR links were replied). After every `step` scopes: two full GCs, heap used
 * read; at the `snapshots` counts a heap snapshot is written. Prints one JSON line (ScopeHeapResult).
 */
export interface ScopeHeapArgs {
  env: Record<string, string>;
  slackUrl: string;
  scopes: number;
  step: number;
  snapshots: number[];
  work: 'help' | 'job';
}

/** Child to parent (IPC): complete the jobs created so far; answer once `jobs` PR links were replied. */
export interface SettleRequest {
  jobs: number;
}

export interface ScopeHeapResult {
  /** heapUsed: every space; bySpace: each of V8's heap spaces' used bytes (code and trusted apart). */
  points: Array<{ scopes: number; heapUsed: number; bySpace: Record<string, number> }>;
  snapshots: Array<{ scopes: number; file: string }>;
  /** SCOPE_HEAP_SITES=1: bytes still held, by the line that allocated them, from the first snapshot's count. */
  sites?: Array<{ site: string; bytes: number }>;
  loadAverage: number[];
}

const gc = (globalThis as { gc?: () => void }).gc;

async function run(args: ScopeHeapArgs): Promise<ScopeHeapResult> {
  if (!gc) throw new Error('run with node --expose-gc');
  const config = loadConfig(args.env);
  if (!config.oauth) throw new Error('OAuth mode expected');
  const logger = createLogger({
    level: config.logLevel,
    secrets: secretsOf(config),
    destination: { write: () => undefined },
  });
  const agent = createDocsAgent(config, { logger });
  const port = await agent.start();
  const events = `http://127.0.0.1:${port}/slack/events`;
  const secret = args.env.SLACK_SIGNING_SECRET ?? '';
  const points: ScopeHeapResult['points'] = [];
  const snapshots: ScopeHeapResult['snapshots'] = [];
  const sites = process.env.SCOPE_HEAP_SITES === '1' ? new AllocationSites() : undefined;
  let held: ScopeHeapResult['sites'];
  try {
    if (sites && args.snapshots.length === 0) await sites.start();
    points.push({ scopes: 0, ...(await settledHeap()) });
    for (let i = 0; i < args.scopes; i++) {
      await command(events, secret, args.slackUrl, i, args.work);
      const scopes = i + 1;
      const measured = args.snapshots.includes(scopes) || scopes % args.step === 0;
      if (measured && args.work === 'job') await jobsSettled(scopes);
      if (args.snapshots.includes(scopes)) {
        await settledHeap();
        const file = join(tmpdir(), `scope-heap-${process.pid}-${scopes}.heapsnapshot`);
        snapshots.push({ scopes, file: writeHeapSnapshot(file) });
        if (sites && scopes === args.snapshots[0]) await sites.start();
      }
      if (scopes % args.step === 0) points.push({ scopes, ...(await settledHeap()) });
    }
    if (sites) {
      await settledHeap();
      held = await sites.stop(Number(process.env.SCOPE_HEAP_TOP ?? 30));
    }
  } finally {
    await agent.stop();
  }
  return { points, snapshots, ...(held ? { sites: held } : {}), loadAverage: loadavg() };
}

/** Heap used once garbage is gone (two full GCs with a turn between: weak callbacks and finalizers run). */
async function settledHeap(): Promise<{ heapUsed: number; bySpace: Record<string, number> }> {
  gc!();
  await new Promise((resolve) => setImmediate(resolve));
  gc!();
  const bySpace = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, s.space_used_size]));
  return { heapUsed: getHeapStatistics().used_heap_size, bySpace };
}

async function command(
  events: string,
  secret: string,
  slackUrl: string,
  i: number,
  work: ScopeHeapArgs['work'],
): Promise<void> {
  const body = slashCommandBody({
    team_id: seededTeam(i),
    user_id: 'U0ALICE',
    channel_id: 'C0DOCS',
    text: work === 'job' ? `document the rate limits for the scope-heap bench bench-mark-h${i}` : 'help',
    response_url: `${slackUrl}/response/scope-heap-${i}`,
  });
  const answer = await postSigned(events, body, secret);
  if (answer.status !== 200 || (work === 'help' && !answer.body.includes('/docs-agent')))
    throw new Error(`${seededTeam(i)} was not served: ${answer.status} ${answer.body.slice(0, 200)}`);
}

/** Job mode: the parent completes every job so far and answers once all `jobs` PR links were replied. */
function jobsSettled(jobs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    process.once('message', (answer: { settled: boolean; error?: string }) =>
      answer.settled ? resolve() : reject(new Error(answer.error)),
    );
    process.send!({ jobs } satisfies SettleRequest);
  });
}

if (process.argv.includes('--child')) {
  let input = '';
  for await (const chunk of process.stdin) input += String(chunk);
  const result = await run(JSON.parse(input) as ScopeHeapArgs);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.disconnect?.();
  process.exit(0);
}
