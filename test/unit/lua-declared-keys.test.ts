import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Issue 34 (Redis Cluster): a Lua script names every key it can name in KEYS, so the cluster routes it to
 * the node of those keys. Only keys a script reads out of a declared set can be built inside it (their
 * names are not known before it runs); they are in the declared keys' slot through the namespace's hash tag,
 * which the cluster contract test proves. A key built from ARGV or by concatenation anywhere else fails here.
 */
const REDIS = join(import.meta.dirname, '..', '..', 'src', 'state', 'redis');

/** The keys a script finds in a declared set and then builds: the one place each may be built. */
const FOUND_IN_A_DECLARED_SET = [
  "redis.call('GET', prefix .. 'start-handover:' .. id)", // ids read from the declared due set
  "redis.call('EXISTS', prefix .. 'delivery:' .. key)", // keys read from the declared due sets
];

/** Commands that take no key. */
const KEYLESS = new Set(['TIME', 'INFO']);

const calls = readdirSync(REDIS)
  .filter((name) => name.endsWith('.ts'))
  .flatMap((name) =>
    [...readFileSync(join(REDIS, name), 'utf8').matchAll(/redis\.p?call\('([A-Z]+)', ([^,)]+)/g)]
      .filter((match) => !KEYLESS.has(match[1]!))
      .map((match) => ({ file: name, call: match[0], key: match[2]!.trim() })),
  );

describe('Lua scripts declare the keys they touch', () => {
  it('finds the scripts (a check that reads nothing proves nothing)', () => {
    expect(calls.length).toBeGreaterThan(50);
  });

  it('every key argument is a KEYS entry, a local bound to one, or a key found in a declared set', () => {
    const locals = new Set<string>();
    for (const name of readdirSync(REDIS).filter((n) => n.endsWith('.ts'))) {
      const source = readFileSync(join(REDIS, name), 'utf8');
      // `local a, b = KEYS[1], KEYS[2]` and `local h = KEYS[1]`: names bound to declared keys only.
      for (const [, names, values] of source.matchAll(/local ([\w, ]+) = ((?:KEYS\[\d+\](?:, )?)+)$/gm))
        if (values) for (const n of names!.split(',')) locals.add(n.trim());
    }
    // Names bound to declared keys in ways the pattern above does not read (a table of them, a loop).
    for (const bound of ['zkey', 'dueKey(p', 'ek'] as const) locals.add(bound);
    const undeclared = calls.filter(
      ({ call, key }) =>
        !key.startsWith('KEYS[') &&
        !locals.has(key) &&
        !FOUND_IN_A_DECLARED_SET.some((allowed) => allowed.startsWith(call)),
    );
    expect(undeclared.map(({ file, call }) => `${file}: ${call}`)).toEqual([]);
  });

  it('builds no key name from the namespace prefix but the keys found in a declared set', () => {
    const built = readdirSync(REDIS)
      .filter((name) => name.endsWith('.ts'))
      .flatMap((name) =>
        readFileSync(join(REDIS, name), 'utf8')
          .split('\n')
          .filter((line) => line.includes('prefix .. '))
          .map((line) => line.trim()),
      );
    expect(
      built.filter((line) => !FOUND_IN_A_DECLARED_SET.some((allowed) => line.includes(allowed))),
    ).toEqual([]);
  });
});
