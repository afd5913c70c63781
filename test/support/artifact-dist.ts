import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BUILT_MAIN } from './bot-process.js';

/*
 * The built artifact (dist/, what the image ships) as fresh as the sources: CI builds before it tests, so this
 * only builds when run on its own after an edit (or on a fresh clone without dist/).
 */

const ROOT = join(import.meta.dirname, '..', '..');
const INPUTS = ['tsconfig.json', 'tsconfig.build.json', 'package.json'];

function newestUnder(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce((newest, entry) => {
    const path = join(dir, entry.name);
    return Math.max(newest, entry.isDirectory() ? newestUnder(path) : statSync(path).mtimeMs);
  }, 0);
}

/** Whether dist/main.js is missing or older than a source or build setting it comes from. */
export function distIsStale(): boolean {
  if (!existsSync(BUILT_MAIN)) return true;
  const newestInput = Math.max(
    newestUnder(join(ROOT, 'src')),
    ...INPUTS.map((file) => statSync(join(ROOT, file)).mtimeMs),
  );
  return statSync(BUILT_MAIN).mtimeMs < newestInput;
}

/** `npm run build` when dist/ is stale; rejects with the build's output when it fails. */
export async function freshDist(): Promise<void> {
  if (!distIsStale()) return;
  const build = spawn('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  build.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  build.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const code = await new Promise<number | null>((done) => build.once('exit', done));
  if (code !== 0) throw new Error(`npm run build failed (${code}):\n${output}`);
}
