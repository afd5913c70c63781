import { readFileSync } from 'node:fs';

/**
 * A tiny reader of V8 heap snapshots (`v8.writeHeapSnapshot`) for bench/scope-heap.ts: self bytes summed per
 * kind of node, so two snapshots diffed say what the heap gained and whose it is.
 */

interface HeapSnapshot {
  snapshot: {
    meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

/**
 * Self bytes and counts per kind: objects by constructor, closures by function name; arrays, strings, code
 * and the engine's hidden parts by what holds them (the first named object or closure retaining them, and
 * the edge's name), so a backing store or a bound function says whose it is.
 */
export function selfSizes(
  file: string,
  by: 'kind' | 'holder' | 'owner' = 'kind',
): Map<string, { bytes: number; count: number }> {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as HeapSnapshot;
  const { node_fields: fields, node_types, edge_fields, edge_types } = snap.snapshot.meta;
  const types = node_types[0];
  const edgeTypes = edge_types[0];
  const width = fields.length;
  const edgeWidth = edge_fields.length;
  const [TYPE, NAME, SIZE, EDGES] = ['type', 'name', 'self_size', 'edge_count'].map((f) =>
    fields.indexOf(f),
  ) as [number, number, number, number];
  const [E_TYPE, E_NAME, E_TO] = ['type', 'name_or_index', 'to_node'].map((f) => edge_fields.indexOf(f)) as [
    number,
    number,
    number,
  ];
  const count = snap.nodes.length / width;
  const typeOf = (n: number) => types[snap.nodes[n * width + TYPE]!]!;
  const named = (n: number) => ['object', 'closure', 'native'].includes(typeOf(n));
  const nameOf = (n: number) => `${typeOf(n)}:${snap.strings[snap.nodes[n * width + NAME]!]}`;
  // Each node's first retainer (weak edges left out) and the edge's name: enough to say whose a node is.
  const owner = new Int32Array(count).fill(-1);
  const via = new Array<string>(count);
  const boundTo = new Map<number, number>();
  let edge = 0;
  for (let n = 0; n < count; n++) {
    const edges = snap.nodes[n * width + EDGES]!;
    for (let k = 0; k < edges; k++, edge += edgeWidth) {
      const to = snap.edges[edge + E_TO]! / width;
      const edgeType = edgeTypes[snap.edges[edge + E_TYPE]!];
      const nameOrIndex = snap.edges[edge + E_NAME]!;
      const edgeName =
        edgeType === 'element' || edgeType === 'hidden'
          ? `[${nameOrIndex}]`
          : String(snap.strings[nameOrIndex]);
      if (edgeName === 'bound_function') boundTo.set(n, to);
      if (edgeType === 'weak' || owner[to] !== -1) continue;
      owner[to] = n;
      via[to] = edgeName;
    }
  }
  // A bound function by what it binds; other named nodes by constructor or function name.
  const kindOf = (n: number) => {
    const target = boundTo.get(n);
    return target === undefined ? (named(n) ? nameOf(n) : typeOf(n)) : `bind(${nameOf(target)})`;
  };
  const generic = new Set([
    'object:Object',
    'object:system / Context',
    'object:Array',
    'object:Map',
    'object:Set',
    'closure:',
  ]);
  // Up through unnamed or generic holders to the first one with a name of its own, at most `depth` steps.
  const holderOf = (n: number, depth: number): string => {
    let at = n;
    const path: string[] = [];
    for (let step = 0; step < depth; step++) {
      if (owner[at] === -1) break;
      path.unshift(via[at]!);
      at = owner[at]!;
      if (named(at) && !generic.has(kindOf(at))) break;
    }
    return `${kindOf(at)}.${path.join('.')}`;
  };
  const sums = new Map<string, { bytes: number; count: number }>();
  for (let n = 0; n < count; n++) {
    const key =
      by === 'holder'
        ? `${kindOf(n)} in ${holderOf(n, 6)}`
        : by === 'owner'
          ? holderOf(n, 12).split('.')[0]!
          : named(n)
            ? kindOf(n)
            : `${typeOf(n)} of ${holderOf(n, 3)}`;
    const sum = sums.get(key) ?? { bytes: 0, count: 0 };
    sum.bytes += snap.nodes[n * width + SIZE]!;
    sum.count += 1;
    sums.set(key, sum);
  }
  return sums;
}
