import { busiestCommands, type RedisProbe } from './deployment-redis.js';
import { type KindRates, sampleKinds } from './redis-monitor.js';
import type { Replica } from './replica-process.js';

/**
 * A window while nobody uses the bot (bench/active-tenants.ts, bench/add-to-slack.ts): the deployment's Redis
 * commands a second (INFO, the probe's own left out), the same split by what they are for (a MONITOR sample
 * in the middle of the window: plane kinds' queues, the due index, the rest), and the tenant contexts the
 * replicas loaded and dropped a minute meanwhile (their /metrics).
 */
export interface QuietWindow {
  commandsPerS: number;
  busiest: string;
  kinds: KindRates;
  /** Both replicas together, per minute of the window. */
  loadedPerMin: number | undefined;
  droppedPerMin: number | undefined;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function quietWindow(
  probe: RedisProbe,
  redisUrl: string,
  replicas: Replica[],
  windowMs: number,
  monitorMs: number,
): Promise<QuietWindow> {
  const contextsBefore = await contexts(replicas);
  const callsBefore = await probe.commandCalls();
  const before = await probe.commandsProcessed();
  const started = performance.now();
  const lead = Math.max(0, (windowMs - monitorMs) / 2);
  await sleep(lead);
  const kinds = await sampleKinds(redisUrl, monitorMs);
  await sleep(Math.max(0, windowMs - lead - monitorMs));
  const after = await probe.commandsProcessed();
  const seconds = (performance.now() - started) / 1000;
  const callsAfter = await probe.commandCalls();
  const contextsAfter = await contexts(replicas);
  callsAfter.delete('info');
  callsAfter.delete('monitor');
  const perMin = (a: number | undefined, b: number | undefined) =>
    a === undefined || b === undefined ? undefined : ((b - a) * 60) / seconds;
  return {
    // Less this probe's first INFO stats (counted once processed) and the MONITOR sample's one command.
    commandsPerS: (after - before - 2) / seconds,
    busiest: busiestCommands(callsBefore, callsAfter, seconds),
    kinds,
    loadedPerMin: perMin(contextsBefore.loaded, contextsAfter.loaded),
    droppedPerMin: perMin(contextsBefore.dropped, contextsAfter.dropped),
  };
}

/** How the scopes resident after a burst of work leave: the time until none is, and Redis meanwhile. */
export interface ScopesLeaving {
  residentAtStart: number;
  /** Undefined: some were still resident when the wait ended. */
  seconds: number | undefined;
  commandsPerS: number;
}

/**
 * Waits (at most `timeoutMs`) until no replica holds a tenant scope (`docs_agent_tenants` 0 on each): after
 * a burst of background work (installs' welcome DMs), its scopes leave after the background idle time, and
 * each eviction lets its affinity records go; "quiet" starts after that.
 */
export async function untilScopesLeave(
  probe: RedisProbe,
  replicas: Replica[],
  timeoutMs: number,
): Promise<ScopesLeaving> {
  const resident = async () => {
    let sum = 0;
    for (const r of replicas) {
      const text = await metricsText(r);
      sum += metricValue(text, 'docs_agent_tenants') ?? 0;
    }
    return sum;
  };
  const before = await probe.commandsProcessed();
  const started = performance.now();
  const residentAtStart = await resident();
  let now = residentAtStart;
  while (now > 0 && performance.now() - started < timeoutMs) {
    await sleep(2_000);
    now = await resident();
  }
  const seconds = (performance.now() - started) / 1000;
  const after = await probe.commandsProcessed();
  return {
    residentAtStart,
    seconds: now === 0 ? seconds : undefined,
    commandsPerS: (after - before - 1) / seconds,
  };
}

/** Tenant contexts loaded and dropped so far, both replicas summed (a labelled counter: absent = 0 dropped). */
async function contexts(replicas: Replica[]): Promise<{ loaded?: number; dropped?: number }> {
  let loaded: number | undefined;
  let dropped: number | undefined;
  for (const r of replicas) {
    const text = await metricsText(r);
    const l = metricValue(text, 'docs_agent_tenant_contexts_loaded_total');
    if (l === undefined) continue;
    loaded = (loaded ?? 0) + l;
    dropped = (dropped ?? 0) + (metricValue(text, 'docs_agent_tenant_contexts_dropped_total') ?? 0);
  }
  return { loaded, dropped };
}

/** A replica's `/metrics` exposition now ('' when it does not answer). */
export const metricsText = (replica: Replica): Promise<string> =>
  fetch(replica.metricsUrl).then(
    (res) => res.text(),
    () => '',
  );

/** A metric's value in an exposition, its series summed over their labels (undefined: no such metric). */
export const metricValue = (text: string, name: string) => {
  let sum: number | undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name) || (line[name.length] !== ' ' && line[name.length] !== '{')) continue;
    sum = (sum ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
};

/** One line per class: "plane: alerts 0.4/s (evalsha 0.2, …)". */
export function kindLines(kinds: KindRates): string {
  return kinds.classes
    .map((c) => `${c.name} ${c.perS.toFixed(c.perS < 10 ? 1 : 0)}/s (${c.busiest})`)
    .join('; ');
}
