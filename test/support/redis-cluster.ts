import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answersPing } from './redis-server.js';

export interface RedisCluster {
  /** Every primary's URL, in port order. */
  urls: string[];
  /** one node's URL, a seed for cluster clients */
  seedUrl: string;
  stop(): Promise<void>;
}

const INSTALL_HINT =
  'install it (apt-get install redis-server, which brings redis-cli) — the Redis Cluster suites must not skip';
/** A node also listens on port + 10000 (the cluster bus), and ports end at 65535. */
const BUS_OFFSET = 10_000;
const MAX_PORT = 65_535 - BUS_OFFSET;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function listen(port: number): Promise<Server | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * `count` loopback ports whose bus ports (port + 10000) are free too. All of them are held open until every
 * one is chosen, so no node's port can be another node's bus port.
 */
async function freeClusterPorts(count: number): Promise<number[]> {
  const held: Server[] = [];
  const ports: number[] = [];
  try {
    for (let attempt = 0; ports.length < count; attempt++) {
      if (attempt >= 20 * count) throw new Error(`found no ${count} free port pairs (P, P + ${BUS_OFFSET})`);
      const server = await listen(0);
      if (!server) continue;
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      // The OS hands out ephemeral ports up to ~61000: those above MAX_PORT have no room for a bus port.
      const bus = port > 0 && port < MAX_PORT ? await listen(port + BUS_OFFSET) : undefined;
      if (!bus) {
        await close(server);
        continue;
      }
      held.push(server, bus);
      ports.push(port);
    }
    return ports.sort((a, b) => a - b);
  } finally {
    await Promise.all(held.map(close));
  }
}

/** Runs a command to its end (killed after `timeoutMs`), with stdout and stderr together. */
function run(
  command: string,
  args: string[],
  timeoutMs: number,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`cannot run ${command} (${error.message}); ${INSTALL_HINT}`));
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

interface Node {
  port: number;
  child: ChildProcess;
  output: () => string;
  /** Set once the process has failed to start or exited. */
  failure: () => Error | undefined;
}

function startNode(port: number, dir: string): Node {
  const child = spawn(
    'redis-server',
    [
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      join(dir, `nodes-${port}.conf`),
      '--cluster-node-timeout',
      '2000',
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  let failure: Error | undefined;
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.once('error', (error) => {
    failure = new Error(`cannot start redis-server (${error.message}); ${INSTALL_HINT}`);
  });
  child.once('exit', (code, signal) => {
    failure ??= new Error(`redis-server on port ${port} exited with ${code ?? signal}:\n${output}`);
  });
  return { port, child, output: () => output, failure: () => failure };
}

async function killNode(node: Node): Promise<void> {
  const { child } = node;
  // A process that never spawned (ENOENT) has no pid and never emits 'exit'.
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await gone;
}

async function clusterInfoOk(port: number, primaries: number): Promise<boolean> {
  const { code, output } = await run(
    'redis-cli',
    ['-h', '127.0.0.1', '-p', String(port), 'cluster', 'info'],
    5_000,
  );
  return (
    code === 0 &&
    output.includes('cluster_state:ok') &&
    output.includes('cluster_slots_assigned:16384') &&
    // Every node must know every other one, or a client seeded there would see fewer masters.
    output.includes(`cluster_known_nodes:${primaries}`)
  );
}

/**
 * A throw-away Redis Cluster of `primaries` (default 3, the least `redis-cli --cluster create` accepts)
 * primaries without replicas, on free loopback ports, no persistence, node files in one temp folder.
 * Fails (never skips) when redis-server or redis-cli is not installed: `.ci/run` installs them.
 */
export async function startRedisCluster(options: { primaries?: number } = {}): Promise<RedisCluster> {
  const primaries = options.primaries ?? 3;
  if (!Number.isInteger(primaries) || primaries < 3) {
    throw new Error(
      `a Redis Cluster needs at least 3 primaries (redis-cli --cluster create), not ${primaries}`,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'docs-agent-redis-cluster-'));
  const nodes: Node[] = [];
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await Promise.all(nodes.map(killNode));
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    for (const port of await freeClusterPorts(primaries)) nodes.push(startNode(port, dir));

    // Generous: the CI machine has 2 shared cores and the nodes start side by side.
    const pingDeadline = Date.now() + 20_000;
    for (const node of nodes) {
      while (!(await answersPing(node.port, 1_000))) {
        const failure = node.failure();
        if (failure) throw failure;
        if (Date.now() > pingDeadline) {
          throw new Error(`redis-server did not answer on port ${node.port} within 20 s:\n${node.output()}`);
        }
        await sleep(25);
      }
    }

    const create = await run(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...nodes.map((node) => `127.0.0.1:${node.port}`),
        '--cluster-replicas',
        '0',
        '--cluster-yes',
      ],
      30_000,
    );
    if (create.code !== 0) {
      throw new Error(`redis-cli --cluster create exited with ${create.code}:\n${create.output}`);
    }

    // `--cluster create` returns once the config is consistent, but gossip may not yet have told every node
    // that every slot is served: wait until each one says so, as a client may ask any of them.
    const infoDeadline = Date.now() + 20_000;
    for (;;) {
      const ok = await Promise.all(nodes.map((node) => clusterInfoOk(node.port, primaries)));
      if (ok.every(Boolean)) break;
      const failure = nodes.map((node) => node.failure()).find(Boolean);
      if (failure) throw failure;
      if (Date.now() > infoDeadline) {
        const infos = await Promise.all(
          nodes.map((node) => run('redis-cli', ['-p', String(node.port), 'cluster', 'info'], 5_000)),
        );
        throw new Error(
          `the Redis Cluster was not ok on every node within 20 s:\n${create.output}\n` +
            infos.map((info, i) => `port ${nodes[i]?.port}:\n${info.output}`).join('\n'),
        );
      }
      await sleep(100);
    }
  } catch (error) {
    await stop();
    throw error;
  }

  const urls = nodes.map((node) => `redis://127.0.0.1:${node.port}`);
  return { urls, seedUrl: urls[0]!, stop };
}

/** Each primary's own client, for what is per node (KEYS, INFO, CLIENT LIST, CLUSTER …). */
export function primariesOf<M, N>(client: { masters: M[]; nodeClient(master: M): Promise<N> }): Promise<N[]> {
  return Promise.all(client.masters.map((master) => client.nodeClient(master)));
}

/** Every key of the cluster, read from each primary. */
export async function keysOf<M>(client: {
  masters: M[];
  nodeClient(master: M): Promise<{ keys(pattern: string): Promise<string[]> }>;
}): Promise<string[]> {
  return (await Promise.all((await primariesOf(client)).map((node) => node.keys('*')))).flat();
}

/** Commands each primary has processed so far (`INFO stats`): read before and after, the difference is its traffic. */
export function commandsProcessed(
  nodes: Array<{ info(section: string): Promise<string> }>,
): Promise<number[]> {
  return Promise.all(
    nodes.map(async (node) => Number(/total_commands_processed:(\d+)/.exec(await node.info('stats'))?.[1])),
  );
}
