import { LazyMap } from './lazy-collections.js';
/** Serialises work per key inside this process (a poll and a follow-up on the same job never interleave). */
export class KeyedLock {
  private readonly tails = new LazyMap<string, Promise<unknown>>();

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const current = previous.then(work, work);
    const tail = current.catch(() => undefined);
    this.tails.set(key, tail);
    try {
      return await current;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
