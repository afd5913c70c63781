import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parse } from 'yaml';
import { ManifestTargetError, MODES, type Mode, manifestFor } from './lib/manifest-for.js';
import { manifestProblems, ROOT } from './lib/manifest-rules.js';

/*
 * npm run manifest -- --mode oauth --host docs-agent.example.com [--docs-host docs.example.com] [--out file]
 * Prints (or writes) manifest.yml made ready for that deployment, checked against the code first.
 */

const USAGE =
  'usage: npm run manifest -- --mode socket|http|oauth [--host docs-agent.example.com] [--docs-host docs.example.com] [--out manifest.local.yml]';

function fail(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

let args: ReturnType<typeof parse>;
try {
  args = parseArgs({
    options: {
      mode: { type: 'string' },
      host: { type: 'string' },
      'docs-host': { type: 'string' },
      out: { type: 'string' },
    },
  }).values;
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}
const mode = args.mode as string | undefined;
if (!mode || !(MODES as readonly string[]).includes(mode)) fail('--mode must be socket, http or oauth');

let text: string;
try {
  text = manifestFor(readFileSync(join(ROOT, 'manifest.yml'), 'utf8'), {
    mode: mode as Mode,
    host: args.host,
    docsHost: args['docs-host'],
  });
} catch (error) {
  if (error instanceof ManifestTargetError) fail(error.message);
  throw error;
}
const problems = manifestProblems(parse(text));
if (problems.length > 0) {
  process.stderr.write(
    `manifest.yml disagrees with the code; fix it first:\n${problems.map((p) => `  - ${p}`).join('\n')}\n`,
  );
  process.exit(1);
}
if (args.out) {
  writeFileSync(args.out, text);
  process.stderr.write(`wrote ${args.out}\n`);
} else process.stdout.write(text);
process.stderr.write(
  `Next: https://api.slack.com/apps → Create New App → From a manifest, and paste it${
    mode === 'oauth' ? '; then Manage Distribution → Activate Public Distribution' : ''
  } (docs/operating.md#minimal-set-ups).\n`,
);
