import { describe, expect, it } from 'vitest';
import { lazily, lazyClosable, lazyObject, lazyPart } from '../../src/common/lazily.js';

class Counter {
  count = 0;
  closed = false;
  add(n: number): number {
    this.count += n;
    return this.count;
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

describe('lazily: a part built on its first use', () => {
  it('builds once, on the first get; ifBuilt never builds', () => {
    let builds = 0;
    const lazy = lazily(() => {
      builds += 1;
      return new Counter();
    });
    expect(lazy.ifBuilt()).toBeUndefined();
    expect(builds).toBe(0);
    lazy.get().add(1);
    lazy.get().add(2);
    expect(builds).toBe(1);
    expect(lazy.ifBuilt()?.count).toBe(3);
  });

  it('tries a build that threw again at the next use', () => {
    let attempts = 0;
    const lazy = lazily(() => {
      attempts += 1;
      if (attempts === 1) throw new Error('not yet');
      return new Counter();
    });
    expect(() => lazy.get()).toThrow('not yet');
    expect(lazy.ifBuilt()).toBeUndefined();
    expect(lazy.get()).toBeInstanceOf(Counter);
    expect(attempts).toBe(2);
  });

  it('a stand-in builds at its first read (methods bound), not when awaited or handed on', async () => {
    let builds = 0;
    const counter = lazyObject(() => {
      builds += 1;
      return new Counter();
    });
    const handedOn = await (async () => counter)();
    expect(handedOn).toBe(counter);
    expect(builds).toBe(0);
    const { add } = counter;
    expect(add(2)).toBe(2);
    expect(counter.count).toBe(2);
    expect('add' in counter).toBe(true);
    expect(builds).toBe(1);
  });

  it("a part's stand-in builds its group once, whichever part is read first", () => {
    let builds = 0;
    const group = lazily(() => {
      builds += 1;
      return { a: new Counter(), b: new Counter() };
    });
    const a = lazyPart(group, 'a');
    const b = lazyPart(group, 'b');
    expect(builds).toBe(0);
    a.add(1);
    b.add(5);
    expect([group.get().a.count, group.get().b.count, builds]).toEqual([1, 5, 1]);
  });

  it('a closable stand-in closed unbuilt builds nothing, and one built after that is closed at once', async () => {
    const made: Counter[] = [];
    const queue = lazyClosable(() => {
      const counter = new Counter();
      made.push(counter);
      return counter;
    });
    await queue.close();
    expect(made).toEqual([]);
    queue.add(1); // a straggler after the stop builds it: closed as it is built
    expect(made).toHaveLength(1);
    expect(made[0]!.closed).toBe(true);

    const used = lazyClosable(() => new Counter());
    used.add(1);
    await used.close();
    expect(used.closed).toBe(true);
  });
});
