/*
 * A Map or Set whose table is made on the first entry. V8 gives every `new Map()` / `new Set()` a hash table
 * at once (about 150 bytes with 64-bit pointers); a tenant scope's parts keep some twenty of them for
 * leases, reads in flight and the like, empty in a quiet scope (issue 43 §2: ≤ 20 KB per resident tenant).
 * These cost one small object until used, and again once emptied (by deletes or a clear): the table goes
 * with the last entry, so a scope whose job has ended keeps none for it. An iteration in progress goes on
 * over the dropped table (it sees no entry added after the drop: none of the parts adds while iterating).
 * Only the methods the parts use are here.
 */

/** What an unused one iterates: one empty Map and one empty Set for the process, never written. */
const NO_ENTRIES: ReadonlyMap<unknown, unknown> = new Map();
const NO_VALUES: ReadonlySet<unknown> = new Set();

export class LazyMap<K, V> {
  private map: Map<K, V> | undefined;

  get size(): number {
    return this.map?.size ?? 0;
  }

  get(key: K): V | undefined {
    return this.map?.get(key);
  }

  has(key: K): boolean {
    return this.map?.has(key) ?? false;
  }

  set(key: K, value: V): this {
    this.map ??= new Map();
    this.map.set(key, value);
    return this;
  }

  delete(key: K): boolean {
    const map = this.map;
    if (!map?.delete(key)) return false;
    if (map.size === 0) this.map = undefined;
    return true;
  }

  clear(): void {
    this.map?.clear(); // an iteration in progress ends, as a Map's would
    this.map = undefined;
  }

  keys(): MapIterator<K> {
    return (this.map ?? (NO_ENTRIES as ReadonlyMap<K, V>)).keys();
  }

  values(): MapIterator<V> {
    return (this.map ?? (NO_ENTRIES as ReadonlyMap<K, V>)).values();
  }

  entries(): MapIterator<[K, V]> {
    return (this.map ?? (NO_ENTRIES as ReadonlyMap<K, V>)).entries();
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }
}

export class LazySet<T> {
  private set: Set<T> | undefined;

  get size(): number {
    return this.set?.size ?? 0;
  }

  has(value: T): boolean {
    return this.set?.has(value) ?? false;
  }

  add(value: T): this {
    this.set ??= new Set();
    this.set.add(value);
    return this;
  }

  delete(value: T): boolean {
    const set = this.set;
    if (!set?.delete(value)) return false;
    if (set.size === 0) this.set = undefined;
    return true;
  }

  clear(): void {
    this.set?.clear();
    this.set = undefined;
  }

  values(): SetIterator<T> {
    return (this.set ?? (NO_VALUES as ReadonlySet<T>)).values();
  }

  [Symbol.iterator](): SetIterator<T> {
    return this.values();
  }
}
