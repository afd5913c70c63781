import { cpus, loadavg, totalmem } from 'node:os';
import { ackVerdict, runAckLatency } from './ack-latency.js';
import { analyticsVerdict, runAnalytics } from './analytics.js';
import { runPollingCost } from './polling-cost.js';
import { runScale, scaleVerdict } from './scale.js';
import { runSlackTiers, slackTiersVerdict } from './slack-tiers.js';
import { fmt, table } from './stats.js';

/**
 * `npm run bench`: the five benchmarks one after the other, one table each plus the target verdicts. Every
 * benchmark is bounded (fixed request counts, fixed windows, child processes killed on timeout), and a
 * watchdog ends the run if anything hangs. See BENCHMARKS.md for the method of each.
 */
// Benchmark 5 runs at Slack's real rates: 100 then 200 jobs take about 5 and 9 minutes.
const WATCHDOG_MS = 30 * 60_000;
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
await section('2. Polling cost against detection delay (simulated clock)', async () => {
  const { rows, summary } = runPollingCost();
  return [
    table(rows),
    `adaptive uses ${fmt(summary.callRatio! * 100)}% of the fixed poller's calls: target ≤ 40% ${
      summary.callRatio! <= 0.4 ? 'MET' : 'MISSED'
    }`,
    `adaptive median delay for jobs < 5 min ${fmt(summary.adaptiveMedianShortS!)} s: target < 10 s ${
      summary.adaptiveMedianShortS! < 10 ? 'MET' : 'MISSED'
    }`,
    `adaptive p95 delay for jobs ≥ 5 min ${fmt(summary.adaptiveP95LongPct!)}% of their age: target < 10% ${
      summary.adaptiveP95LongPct! < 10 ? 'MET' : 'MISSED'
    }`,
  ];
});
await section('3. Scale: 10,000 watched jobs', async () => {
  const { rows, summary } = await runScale();
  return [table(rows), ...scaleVerdict(summary)];
});
await section('4. Analytics: top pages over 10,000 paths (50 ms upstream)', async () => {
  const { rows, summary } = await runAnalytics();
  return [table(rows), ...analyticsVerdict(summary)];
});
await section('5. Many jobs within Slack rate tiers (documented minimums)', async () => {
  const { rows, results } = await runSlackTiers();
  return [table(rows), ...slackTiersVerdict(results)];
});
process.exit(0);
