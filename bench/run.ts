import { cpus, loadavg, totalmem } from 'node:os';
import { ackVerdict, runAckLatency } from './ack-latency.js';
import { analyticsVerdict, runAnalytics } from './analytics.js';
import { pollingVerdict, runPollingCost } from './polling-cost.js';
import { runScale, scaleVerdict } from './scale.js';
import { fmt, table } from './stats.js';

/**
 * `npm run bench`: the four benchmarks one after the other, one table each plus the target verdicts. Every
 * benchmark is bounded (fixed request counts, fixed windows, child processes killed on timeout), and a
 * watchdog ends the run if anything hangs. See BENCHMARKS.md for the method of each.
 */
const WATCHDOG_MS = 10 * 60_000;
const watchdog = setTimeout(() => {
  console.error(`benchmarks did not finish within ${WATCHDOG_MS / 60_000} minutes; giving up`);
  process.exit(2);
}, WATCHDOG_MS);
watchdog.unref();

const cpu = cpus()[0]?.model ?? 'unknown CPU';
console.log(
  `docs-agent benchmarks — ${new Date().toISOString()} — Node ${process.version} — ${cpus().length} × ${cpu} — ${fmt(
    totalmem() / 1024 ** 3,
  )} GiB — load average ${loadavg()
    .map((l) => fmt(l, 2))
    .join(' ')} (benchmarks 1 and 3 are only comparable on an otherwise idle machine)\n`,
);

const section = async (title: string, run: () => Promise<string[]>) => {
  const started = Date.now();
  console.log(`## ${title}`);
  for (const line of await run()) console.log(line);
  console.log(`(${fmt((Date.now() - started) / 1000)} s)\n`);
};

await section('1. Acknowledgement latency (docs API 2 s slow)', async () => {
  const { rows, summary } = await runAckLatency();
  return [table(rows), ...ackVerdict(summary)];
});
await section(
  '5. Time to the PR link: adaptive polling against a fixed 5 s poller (simulated clock)',
  async () => {
    const { rows, summary } = runPollingCost();
    return [table(rows), ...pollingVerdict(summary)];
  },
);
await section('3. Scale: 10,000 watched jobs', async () => {
  const { rows, summary } = await runScale();
  return [table(rows), ...scaleVerdict(summary)];
});
await section('4. Analytics: top pages over 10,000 paths (50 ms upstream)', async () => {
  const { rows, summary } = await runAnalytics();
  return [table(rows), ...analyticsVerdict(summary)];
});
process.exit(0);
