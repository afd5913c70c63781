import { readFileSync } from 'node:fs';

/**
 * The long synchronous tasks in a V8 CPU profile (`node --cpu-prof`): runs of consecutive samples that are
 * not idle, longer than a threshold, each with the functions that took most of it (self time) and the
 * deepest frame of ours (src/) under it. Issue 43 asks that no synchronous task on the request path take over
 * 10 ms; this finds where to look. A run of busy samples may hold several tasks back to back (a profile
 * does not mark where a task ends), so on a busy loop a run bounds its tasks from above: read it with the
 * event loop's own delay (`monitorEventLoopDelay`), which the benchmarks print.
 *
 *   npx tsx bench/long-tasks.ts <file.cpuprofile> [thresholdMs=10] [top=15]
 */

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface LongTask {
  startMs: number;
  durationMs: number;
  /** Self time per function in the task, largest first. */
  hottest: Array<{ name: string; ms: number }>;
  /** The deepest frame under src/ that the task's samples spent most time in (its caller of ours). */
  ours: string | undefined;
  gcMs: number;
}

/** How a profile's samples are named: each frame's label, and the deepest frame of ours above a sample. */
function framesOf(profile: CpuProfile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const label = (f: CallFrame) =>
    `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(src|node_modules)\//, '$1/')}:${f.lineNumber + 1}`;
  const oursOf = (id: number): string | undefined => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)?.callFrame;
      if (frame?.url.includes('/src/')) return label(frame);
    }
    return undefined;
  };
  return { byId, label, oursOf };
}

/** A run of samples summed up: self time per function, its main frame of ours, its GC. */
function summary(
  { byId, label, oursOf }: ReturnType<typeof framesOf>,
  run: Array<{ id: number; ms: number }>,
  startMs: number,
): LongTask {
  const self = new Map<string, number>();
  const mine = new Map<string, number>();
  let gcMs = 0;
  for (const s of run) {
    const frame = byId.get(s.id)!.callFrame;
    if (frame.functionName === '(garbage collector)') gcMs += s.ms;
    self.set(label(frame), (self.get(label(frame)) ?? 0) + s.ms);
    const ours = oursOf(s.id);
    if (ours) mine.set(ours, (mine.get(ours) ?? 0) + s.ms);
  }
  const top = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]);
  return {
    startMs,
    durationMs: run.reduce((sum, s) => sum + s.ms, 0),
    hottest: top(self)
      .slice(0, 5)
      .map(([name, ms]) => ({ name, ms })),
    ours: top(mine)[0]?.[0],
    gcMs,
  };
}

/**
 * The samples inside given stretches of the monotonic clock (µs, as `process.hrtime` and the profile's
 * `startTime` count it): what ran between two turns of the event loop that a benchmark saw too far apart.
 */
export function inWindows(profile: CpuProfile, windows: Array<{ fromUs: number; toUs: number }>): LongTask[] {
  const at: number[] = [];
  let clock = profile.startTime;
  for (const [i] of profile.samples.entries()) {
    clock += profile.timeDeltas[i] ?? 0;
    at.push(clock);
  }
  const frames = framesOf(profile);
  return windows.map(({ fromUs, toUs }) => {
    const run: Array<{ id: number; ms: number }> = [];
    for (const [i, id] of profile.samples.entries())
      if (at[i]! >= fromUs && at[i]! <= toUs) run.push({ id, ms: (profile.timeDeltas[i + 1] ?? 0) / 1000 });
    return summary(frames, run, (fromUs - profile.startTime) / 1000);
  });
}

export function longTasks(profile: CpuProfile, thresholdMs: number): LongTask[] {
  const frames = framesOf(profile);
  const { byId } = frames;
  const tasks: LongTask[] = [];
  let run: Array<{ id: number; ms: number }> = [];
  let runStart = 0;
  let clock = 0;
  const flush = () => {
    const duration = run.reduce((sum, s) => sum + s.ms, 0);
    if (duration >= thresholdMs) tasks.push(summary(frames, run, runStart));
    run = [];
  };
  for (const [i, id] of profile.samples.entries()) {
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    clock += (profile.timeDeltas[i] ?? 0) / 1000;
    const name = byId.get(id)?.callFrame.functionName ?? '';
    // GC and the VM's own work ("(program)": compiling, parsing) inside a task are part of it; idle ends it.
    if (name === '(idle)') {
      flush();
      continue;
    }
    if (run.length === 0) runStart = clock;
    run.push({ id, ms });
  }
  flush();
  return tasks.sort((a, b) => b.durationMs - a.durationMs);
}

if (process.argv[1]?.endsWith('long-tasks.ts')) {
  const [file, threshold = '10', top = '15', windowsFile] = process.argv.slice(2);
  if (!file) {
    console.error('usage: npx tsx bench/long-tasks.ts <file.cpuprofile> [thresholdMs] [top] [windows.json]');
    process.exit(2);
  }
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  // A file of windows (`[{fromUs, toUs}]`, e.g. bench/ack-burst.ts's BENCH_STRETCHES): those, in order.
  const tasks = windowsFile
    ? inWindows(profile, JSON.parse(readFileSync(windowsFile, 'utf8')))
    : longTasks(profile, Number(threshold));
  console.log(`${tasks.length} task(s) of ${threshold} ms or more in ${file}`);
  for (const t of tasks.slice(0, Number(top))) {
    console.log(
      `- ${t.durationMs.toFixed(1)} ms at ${(t.startMs / 1000).toFixed(2)} s (GC ${t.gcMs.toFixed(1)} ms); ours: ${t.ours ?? '—'}`,
    );
    for (const h of t.hottest) console.log(`    ${h.ms.toFixed(1)} ms  ${h.name}`);
  }
}
