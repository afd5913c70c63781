import { readFileSync } from 'node:fs';

/**
 * Retained sizes from a V8 heap snapshot (for bench/scope-heap.ts, view `retained`): the dominator tree
 * (Cooper, Harvey and Kennedy's iterative algorithm over the strong edges from the snapshot's root), then, per
 * constructor of the objects (and name of the closures), the bytes their instances keep alive. Instances that
 * hold one another count in each: read a row as "what dropping every X would free".
 */

interface Snapshot {
  snapshot: {
    meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

export function retainedByKind(file: string): Map<string, { bytes: number; count: number }> {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const meta = snap.snapshot.meta;
  const width = meta.node_fields.length;
  const edgeWidth = meta.edge_fields.length;
  const field = (name: string) => meta.node_fields.indexOf(name);
  const [TYPE, NAME, SIZE, EDGES] = [field('type'), field('name'), field('self_size'), field('edge_count')];
  const E_TYPE = meta.edge_fields.indexOf('type');
  const E_TO = meta.edge_fields.indexOf('to_node');
  const weak = meta.edge_types[0].indexOf('weak');
  const count = snap.nodes.length / width;
  // Strong successors, as offsets into the edge array.
  const firstEdge = new Int32Array(count + 1);
  for (let n = 0; n < count; n++)
    firstEdge[n + 1] = firstEdge[n]! + snap.nodes[n * width + EDGES]! * edgeWidth;
  const strong = (e: number) => snap.edges[e + E_TYPE] !== weak;
  // Postorder from the root (node 0), iteratively.
  const order = new Int32Array(count).fill(-1);
  const post = new Int32Array(count);
  let visited = 0;
  const stack = [0];
  const cursor = new Int32Array(count);
  for (let n = 0; n < count; n++) cursor[n] = firstEdge[n]!;
  const seen = new Uint8Array(count);
  seen[0] = 1;
  while (stack.length) {
    const n = stack[stack.length - 1]!;
    let pushed = false;
    while (cursor[n]! < firstEdge[n + 1]!) {
      const e = cursor[n]!;
      cursor[n] = e + edgeWidth;
      const to = snap.edges[e + E_TO]! / width;
      if (!strong(e) || seen[to]) continue;
      seen[to] = 1;
      stack.push(to);
      pushed = true;
      break;
    }
    if (pushed) continue;
    stack.pop();
    order[n] = visited;
    post[visited++] = n;
  }
  // Predecessors of reachable nodes (CSR).
  const predCount = new Int32Array(count + 1);
  for (let n = 0; n < count; n++)
    if (seen[n])
      for (let e = firstEdge[n]!; e < firstEdge[n + 1]!; e += edgeWidth)
        if (strong(e)) predCount[snap.edges[e + E_TO]! / width + 1]! += 1;
  for (let n = 0; n < count; n++) predCount[n + 1]! += predCount[n]!;
  const preds = new Int32Array(predCount[count]!);
  const fill = predCount.slice(0, count);
  for (let n = 0; n < count; n++)
    if (seen[n])
      for (let e = firstEdge[n]!; e < firstEdge[n + 1]!; e += edgeWidth)
        if (strong(e)) preds[fill[snap.edges[e + E_TO]! / width]!++] = n;
  // Immediate dominators by postorder number.
  const idom = new Int32Array(visited).fill(-1);
  const root = order[0]!;
  idom[root] = root;
  const intersect = (a: number, b: number) => {
    while (a !== b) {
      while (a < b) a = idom[a]!;
      while (b < a) b = idom[b]!;
    }
    return a;
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (let i = visited - 1; i >= 0; i--) {
      if (i === root) continue;
      const n = post[i]!;
      let next = -1;
      for (let p = predCount[n]!; p < predCount[n + 1]!; p++) {
        const q = order[preds[p]!]!;
        if (q < 0 || idom[q] === -1) continue;
        next = next === -1 ? q : intersect(q, next);
      }
      if (next !== -1 && idom[i] !== next) {
        idom[i] = next;
        changed = true;
      }
    }
  }
  // Retained: a node's own bytes and those of every node it dominates (children come first in postorder).
  const retained = new Float64Array(visited);
  for (let i = 0; i < visited; i++) retained[i]! += snap.nodes[post[i]! * width + SIZE]!;
  for (let i = 0; i < visited; i++) if (i !== root && idom[i]! !== -1) retained[idom[i]!]! += retained[i]!;
  const types = meta.node_types[0];
  const sums = new Map<string, { bytes: number; count: number }>();
  for (let i = 0; i < visited; i++) {
    const n = post[i]!;
    const type = types[snap.nodes[n * width + TYPE]!];
    if (type !== 'object' && type !== 'closure') continue;
    const key = `${type}:${snap.strings[snap.nodes[n * width + NAME]!]}`;
    const sum = sums.get(key) ?? { bytes: 0, count: 0 };
    sum.bytes += retained[i]!;
    sum.count += 1;
    sums.set(key, sum);
  }
  return sums;
}
