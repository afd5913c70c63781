import { describe, expect, it } from 'vitest';
import { LazyMap, LazySet } from '../../src/common/lazy-collections.js';

/** A small deterministic sequence (no Math.random: a failure replays). */
function* ops(seed: number, count: number): Generator<{ op: number; key: string }> {
  let x = seed;
  for (let i = 0; i < count; i++) {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31;
    yield { op: x % 5, key: `k${(x >> 8) % 7}` };
  }
}

describe('LazyMap and LazySet (issue 43 §2: no hash table in a quiet scope)', () => {
  it('hold no Map or Set until their first entry', () => {
    const map = new LazyMap<string, number>();
    const set = new LazySet<string>();
    expect([map.get('a'), map.has('a'), map.delete('a'), map.size, [...map], [...map.keys()]]).toEqual([
      undefined,
      false,
      false,
      0,
      [],
      [],
    ]);
    expect([set.has('a'), set.delete('a'), set.size, [...set]]).toEqual([false, false, 0, []]);
    map.clear();
    set.clear();
    const inner = (o: object) => Object.values(o).filter((v) => v instanceof Map || v instanceof Set);
    expect([...inner(map), ...inner(set)]).toEqual([]);
    map.set('a', 1);
    set.add('a');
    expect(inner(map)).toHaveLength(1);
    expect(inner(set)).toHaveLength(1);
  });

  it('drop their Map or Set once emptied again, by deletes or a clear (a scope whose job ended keeps none)', () => {
    const inner = (o: object) => Object.values(o).filter((v) => v instanceof Map || v instanceof Set);
    const map = new LazyMap<string, number>();
    const set = new LazySet<string>();
    map.set('a', 1).set('b', 2);
    set.add('a').add('b');
    map.delete('a');
    set.delete('a');
    expect([inner(map), inner(set)].map((x) => x.length)).toEqual([1, 1]);
    map.delete('b');
    set.delete('b');
    expect([...inner(map), ...inner(set)]).toEqual([]);
    map.set('c', 3);
    set.add('c');
    map.clear();
    set.clear();
    expect([...inner(map), ...inner(set)]).toEqual([]);
    // An iteration that deletes every entry as it goes ends as a Map's would.
    for (const k of ['x', 'y', 'z']) map.set(k, 0);
    const seen: string[] = [];
    for (const [k] of map) {
      seen.push(k);
      map.delete(k);
    }
    expect([seen, map.size, inner(map).length]).toEqual([['x', 'y', 'z'], 0, 0]);
  });

  it('answer as a Map and a Set do, through any sequence of changes', () => {
    const lazy = new LazyMap<string, number>();
    const map = new Map<string, number>();
    const lazySet = new LazySet<string>();
    const set = new Set<string>();
    let i = 0;
    for (const { op, key } of ops(7, 500)) {
      i += 1;
      if (op === 0) {
        expect(lazy.set(key, i)).toBe(lazy);
        map.set(key, i);
      }
      if (op === 1) expect(lazy.delete(key)).toBe(map.delete(key));
      if (op === 2) {
        expect(lazySet.add(key)).toBe(lazySet);
        set.add(key);
      }
      if (op === 3) expect(lazySet.delete(key)).toBe(set.delete(key));
      if (op === 4 && i % 50 === 0) {
        for (const c of [lazy, map, lazySet, set]) c.clear();
      }
      expect(lazy.get(key)).toBe(map.get(key));
      expect(lazy.has(key)).toBe(map.has(key));
      expect(lazySet.has(key)).toBe(set.has(key));
      expect([...lazy]).toEqual([...map]);
      expect([...lazy.values()]).toEqual([...map.values()]);
      expect([...lazySet.values()]).toEqual([...set]);
      expect([lazy.size, lazySet.size]).toEqual([map.size, set.size]);
    }
  });
});
