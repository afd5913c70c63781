// Throw-away: idle Redis commands of one replica's plane (default 8 shards, every kind started).
import { connect } from 'node:net';
const root = process.argv[2];
const { createLogger } = await import(`${root}/src/common/logger.ts`);
const { QueuePlane } = await import(`${root}/src/state/redis/queue-plane.ts`);
const { connectRedis } = await import(`${root}/src/state/redis/redis-client.ts`);
const { startRedisServer } = await import(`${root}/test/support/redis-server.ts`);
const redis = await startRedisServer();
const logger = createLogger({ level: 'silent', secrets: [] });
const client = await connectRedis(redis.url, logger, { failFast: false });
const plane = new QueuePlane({ client, logger, prefix: 'idle', wake: async () => 'served' });
plane.start();
await new Promise((r) => setTimeout(r, 10_000));
const { hostname, port } = new URL(redis.url);
const socket = connect(Number(port), hostname);
let sent = 0, inScripts = 0, rest = '';
const byCmd = new Map();
socket.write('MONITOR\r\n');
socket.on('data', (chunk) => {
  const lines = (rest + chunk.toString('latin1')).split('\r\n');
  rest = lines.pop() ?? '';
  for (const line of lines) {
    if (!line.startsWith('+') || line === '+OK') continue;
    if (line.includes(' lua] ')) inScripts++;
    else { sent++; const cmd = /\] "([^"]+)"/.exec(line)?.[1]?.toLowerCase(); byCmd.set(cmd, (byCmd.get(cmd) ?? 0) + 1); }
  }
});
await new Promise((r) => setTimeout(r, 20_000));
socket.destroy();
console.log(JSON.stringify({ root, sentPerS: sent / 20, inScriptsPerS: inScripts / 20, byCmd: Object.fromEntries([...byCmd].map(([k, v]) => [k, v / 20])) }));
await plane.close();
await client.quit?.().catch?.(() => undefined);
await redis.stop?.();
process.exit(0);
