import { connect } from 'node:net';

/**
 * Redis commands a second by what they are for, from a few seconds of `MONITOR` (issue 43: "the deployment
 * plus only the due work of configured tenants, per kind"). A command is classed by the keys it names: a
 * plane kind's queue (`{plane-<kind>-<shard>}`), the due index (`{due}`), or the rest (directory, changes
 * stream, leases, tenant keys). Commands a Lua script runs (`[0 lua]`) are counted too, by their own keys, as
 * Redis's `total_commands_processed` counts them; a keyless one (TIME) goes to the rest. Each class's
 * busiest entries name the command and its first key, tenant ids and numbers folded (`<T>`, `#`).
 */

export interface KindRates {
  seconds: number;
  /** class → commands a second, and its busiest commands. */
  classes: Array<{ name: string; perS: number; busiest: string }>;
  totalPerS: number;
}

const PLANE = /\{plane-([a-z-]+?)-\d+\}/;

/** The class of one MONITOR line (undefined: left out). */
export function classOf(line: string): { name: string; command: string } | undefined {
  // `1733… [0 127.0.0.1:5555] "evalsha" "…" …`; a script's own calls show `[0 lua]`.
  const m = /^\+?\d+\.\d+ \[\d+ ([^\]]+)\] "([^"]+)"(.*)$/.exec(line);
  if (!m) return undefined;
  const name = m[2]!.toLowerCase();
  if (name === 'info' || name === 'monitor') return undefined;
  const rest = m[3]!;
  const command = `${name} ${keyPattern(name, rest)}`.trim();
  const kind = PLANE.exec(rest)?.[1];
  if (kind) return { name: `plane: ${kind}`, command };
  if (rest.includes('{plane')) return { name: 'plane: shared keys', command };
  if (rest.includes('{due}')) return { name: 'due index', command };
  return { name: 'rest', command };
}

/** The first key of a command's arguments (EVAL/EVALSHA: after the script and the key count), folded. */
function keyPattern(command: string, args: string): string {
  const quoted = [...args.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((a) => a[1]!);
  const key = (command === 'eval' || command === 'evalsha' ? quoted[2] : quoted[0]) ?? '';
  return key
    .replace(/T0[A-Z]\d+/g, '<T>')
    .replace(/[0-9a-f]{16,}/g, '<h>')
    .replace(/\d+/g, '#')
    .slice(0, 60);
}

/** MONITOR for `ms` on a connection of its own: commands a second per class. */
export async function sampleKinds(redisUrl: string, ms: number): Promise<KindRates> {
  const { hostname, port } = new URL(redisUrl);
  const socket = connect({ host: hostname, port: Number(port) });
  const counts = new Map<string, Map<string, number>>();
  let buffer = '';
  let started = 0;
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    let at = buffer.indexOf('\r\n');
    while (at >= 0) {
      const line = buffer.slice(0, at);
      buffer = buffer.slice(at + 2);
      at = buffer.indexOf('\r\n');
      if (line === '+OK') started = performance.now();
      const c = started ? classOf(line) : undefined;
      if (!c) continue;
      const byCommand = counts.get(c.name) ?? new Map<string, number>();
      byCommand.set(c.command, (byCommand.get(c.command) ?? 0) + 1);
      counts.set(c.name, byCommand);
    }
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.write('MONITOR\r\n');
  await new Promise((r) => setTimeout(r, ms));
  const seconds = started ? (performance.now() - started) / 1000 : ms / 1000;
  socket.destroy();
  const classes = [...counts]
    .map(([name, byCommand]) => {
      const total = [...byCommand.values()].reduce((n, k) => n + k, 0);
      const busiest = [...byCommand]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 3)
        .map(([command, n]) => `${command} ${(n / seconds).toFixed(1)}`)
        .join(', ');
      return { name, perS: total / seconds, busiest };
    })
    .sort((a, b) => b.perS - a.perS);
  return { seconds, classes, totalPerS: classes.reduce((n, c) => n + c.perS, 0) };
}
