import {
  ACK_P99_TARGET_MS,
  type AckSummary,
  ackVerdictLines,
  emptySummary,
  forEachAckMode,
  measureWindow,
  windowRows,
  withAckRig,
} from './ack-shared.js';
import type { LoadResult } from './fakes-process.js';
import { sized } from './smoke.js';
import type { Row } from './stats.js';

/**
 * Acknowledgements under mixed load (issue 37, point 2): 400 signed slash commands in a closed loop, round-robin
 * over `/docs-agent <instruction>`, `/docs-agent list` and `/docs-views`, with the docs API answering in 2 s.
 * The real app (bench/product.ts through startBenchApp) runs in this process; the fakes and the load generator
 * run in a child process (bench/fakes-process.ts). Memory mode and Redis mode (a throw-away redis-server) run
 * one after the other in the same run, so their figures are side by side. Every `/docs-views` asks for the same
 * range: the first fetch is shared by the requests behind it, later ones build their report and chart from the
 * cache after `ack()`. Rig, windows and rows are shared with §1 (bench/ack-shared.ts).
 */
const REQUESTS = Number(process.env.BENCH_MIXED_REQUESTS ?? sized(400, 12));
const CONCURRENCY = Number(process.env.BENCH_MIXED_CONCURRENCY ?? sized(8, 2));
export const MIXED_P99_TARGET_MS = ACK_P99_TARGET_MS;

const MIX = [
  { label: '/docs-agent <instruction>', command: '/docs-agent', text: 'Document the new 429 response' },
  { label: '/docs-agent list', command: '/docs-agent', text: 'list' },
  { label: '/docs-views', command: '/docs-views', text: '7d top 10' },
];
const LABELS = MIX.map((m) => m.label);

export type MixedSummary = AckSummary;

export async function runAckMixed(): Promise<{ rows: Row[]; summary: MixedSummary }> {
  const rows: Row[] = [];
  const summary = emptySummary();
  await withAckRig((rig) =>
    forEachAckMode(rig, async (mode, app) => {
      const run = (requests: number, tag: string) =>
        rig.fakes.send<LoadResult>({
          cmd: 'load',
          url: app.url,
          requests,
          concurrency: CONCURRENCY,
          commands: MIX.map((m) => m.command),
          texts: MIX.map((m) => m.text),
          labels: LABELS,
          tag,
        });
      await run(sized(30, 3), `mixed-warm-${mode}-`);
      const { result, conditions } = await measureWindow(() => run(REQUESTS, `mixed-${mode}-`));
      rows.push(
        ...windowRows(
          { mode, label: mode },
          LABELS,
          result.byLabel,
          result.failuresByLabel,
          conditions,
          summary,
        ),
      );
    }),
  );
  return { rows, summary };
}

export function mixedVerdict(s: MixedSummary): string[] {
  return ackVerdictLines(s, `(${CONCURRENCY} concurrent, closed loop)`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { table } = await import('./stats.js');
  const { rows, summary } = await runAckMixed();
  console.log(table(rows));
  for (const line of mixedVerdict(summary)) console.log(line);
  process.exit(0);
}
