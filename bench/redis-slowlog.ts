import { createClient } from '@redis/client';

/**
 * What Redis itself says about a measured window: its SLOWLOG (every command slower than 1 ms, Lua scripts
 * included) and LATENCY monitor (events of 5 ms or more). Tells "Redis was busy with a long command" from
 * "the app waited behind its own queue of commands" (issue 28). Asynchronous, so the app under test (in
 * this process) is never blocked by the check.
 */
export interface RedisWatch {
  /** One line: the slow commands seen since `start`, the slowest first, and the latency events. */
  report(): Promise<string>;
  close(): Promise<void>;
}

const SLOW_US = 1_000;
const LATENCY_MS = 5;

export async function watchRedis(url: string): Promise<RedisWatch> {
  const client = createClient({ url });
  client.on('error', () => undefined);
  await client.connect();
  await client.sendCommand(['CONFIG', 'SET', 'slowlog-log-slower-than', String(SLOW_US)]);
  await client.sendCommand(['CONFIG', 'SET', 'latency-monitor-threshold', String(LATENCY_MS)]);
  await client.sendCommand(['SLOWLOG', 'RESET']);
  await client.sendCommand(['LATENCY', 'RESET']);
  return {
    async report() {
      // Entries: [id, unix time, microseconds, [command, ...args], client address, client name].
      const slow = (await client.sendCommand(['SLOWLOG', 'GET', '1000'])) as Array<
        [unknown, unknown, number, string[]]
      >;
      // Rows: [event, unix time of the latest, latest ms, all-time max ms].
      const latency = (await client.sendCommand(['LATENCY', 'LATEST'])) as Array<
        [string, number, number, number]
      >;
      const worst = [...slow].sort((a, b) => Number(b[2]) - Number(a[2])).slice(0, 3);
      const slowText =
        slow.length === 0
          ? `no command over ${SLOW_US / 1000} ms`
          : `${slow.length} command(s) over ${SLOW_US / 1000} ms, slowest ${worst
              .map((e) => `${String(e[3]?.[0] ?? '?').toUpperCase()} ${(Number(e[2]) / 1000).toFixed(1)} ms`)
              .join(', ')}`;
      const latencyText =
        latency.length === 0
          ? `no latency event over ${LATENCY_MS} ms`
          : `latency events: ${latency.map((l) => `${l[0]} max ${l[3]} ms`).join(', ')}`;
      return `Redis SLOWLOG: ${slowText}; LATENCY: ${latencyText}`;
    },
    async close() {
      await client.close().catch(() => client.destroy());
    },
  };
}
