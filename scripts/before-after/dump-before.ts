/**
 * Dumps the "before" JSON of every kind (scripts/before-after/kinds.ts) from the builders of the baseline
 * commit, for scripts/draw-before-after.ts. Run in a checkout of 307e674 into which this file, kinds.ts,
 * test/support/copy-fixtures.ts, test/support/copy-renders*.ts and demo/demo-data.ts were copied (the same
 * paths), so the old builders get today's data:
 *
 *   npx tsx scripts/before-after/dump-before.ts <docs/images/before-after/json of this checkout>
 *
 * A kind whose builder did not exist then, or did not take this data, is kept as `missing` with the reason;
 * `OLD_CALLS` holds the calls for builders whose arguments changed since.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Module, Renders } from '../../test/support/copy-fixtures.js';
import { KINDS } from './kinds.js';
import { OLD_CALLS } from './old-calls.js';

const MESSAGES = fileURLToPath(new URL('../../src/slack/messages/', import.meta.url));
const BASELINE = '307e674';

async function registry(): Promise<Renders> {
  const merged: Renders = {};
  for (const [path, name] of [
    ['copy-renders.js', 'RENDERS'],
    ['copy-renders-replies.js', 'REPLY_RENDERS'],
    ['copy-renders-more.js', 'MORE_RENDERS'],
    ['copy-renders-shared.js', 'SHARED_RENDERS'],
  ] as const) {
    const module = (await import(`../../test/support/${path}`)) as Record<string, Renders>;
    for (const [file, renders] of Object.entries(module[name] ?? {}))
      merged[file] = { ...merged[file], ...renders };
  }
  return merged;
}

async function main(): Promise<void> {
  const out = process.argv[2];
  if (!out) throw new Error('usage: dump-before.ts <json directory>');
  const renders = await registry();
  for (const kind of KINDS) {
    let result: { output: unknown } | { missing: string };
    try {
      const module: Module = await import(`${MESSAGES}${kind.file}`);
      const old =
        OLD_CALLS[kind.kind] ??
        (kind.compose ? () => kind.compose?.((file) => import(`${MESSAGES}${file}`)) : undefined);
      if (!old && typeof module[kind.builder] !== 'function')
        throw new Error(`There was no ${kind.builder} in ${kind.file}`);
      const output = old ? await old(module) : renders[kind.file]?.[kind.builder]?.(module)[kind.index];
      result = output === undefined ? { missing: 'Nothing was rendered.' } : { output };
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      const missing = /Cannot find module|ERR_MODULE_NOT_FOUND/.test(why)
        ? `${kind.file} did not exist at ${BASELINE}: this kind is new.`
        : why.startsWith('There was no')
          ? `${why} at ${BASELINE}: this kind is new.`
          : `Not drawn at ${BASELINE}: ${why}`;
      result = { missing };
    }
    writeFileSync(
      `${out}/${kind.kind}-before.json`,
      `${JSON.stringify({ commit: BASELINE, ...result }, null, 2)}\n`,
    );
    console.log(kind.kind, 'output' in result ? 'ok' : result.missing);
  }
}

await main();
