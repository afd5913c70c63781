/**
 * Draws every message kind before and after (issue 46): `npx tsx scripts/draw-before-after.ts`.
 *
 * After: today's builders (src/slack/messages) called with the copy test's fixtures (the playground's demo
 * data), one state per kind (scripts/before-after/kinds.ts); its JSON is written beside the pictures. Before:
 * the builders at 307e674 (the baseline) with the same data, kept as JSON in
 * docs/images/before-after/json/ (dumped once by scripts/before-after/dump-before.ts in a checkout of that
 * commit). Both are drawn by the playground's own renderer and page style in Chromium (CHROMIUM_PATH, else
 * /usr/bin/chromium), cropped to the message: docs/images/before-after/<kind>-before.png and -after.png.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import type { Module, Renders } from '../test/support/copy-fixtures.js';
import { RENDERS as BASIC } from '../test/support/copy-renders.js';
import { FORM_RENDERS } from '../test/support/copy-renders-forms.js';
import { MORE_RENDERS } from '../test/support/copy-renders-more.js';
import { REPLY_RENDERS } from '../test/support/copy-renders-replies.js';
import { SHARED_RENDERS } from '../test/support/copy-renders-shared.js';
import { KINDS } from './before-after/kinds.js';
import { missingPage, pageFor, WIDTH } from './before-after/render-html.js';

const OUT = fileURLToPath(new URL('../docs/images/before-after/', import.meta.url));
const JSON_DIR = `${OUT}json/`;
const MESSAGES = fileURLToPath(new URL('../src/slack/messages/', import.meta.url));
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const RENDERS: Renders = { ...BASIC };
for (const more of [REPLY_RENDERS, MORE_RENDERS, SHARED_RENDERS, FORM_RENDERS])
  for (const [file, renders] of Object.entries(more)) RENDERS[file] = { ...RENDERS[file], ...renders };

/** Today's output for a kind (throws when the registry no longer has it: the list must follow). */
async function after(kind: (typeof KINDS)[number]): Promise<unknown> {
  if (kind.compose) return kind.compose((file) => import(`${MESSAGES}${file}`));
  const render = RENDERS[kind.file]?.[kind.builder];
  if (!render) throw new Error(`${kind.kind}: ${kind.file} ${kind.builder} is not in the copy registry`);
  const module: Module = await import(`${MESSAGES}${kind.file}`);
  const outputs = render(module);
  if (kind.index >= outputs.length) throw new Error(`${kind.kind}: no render #${kind.index}`);
  return outputs[kind.index];
}

/** The kept JSON of the baseline: its output, or why there is none. */
function before(kind: string): { output: unknown } | { missing: string } {
  const path = `${JSON_DIR}${kind}-before.json`;
  if (!existsSync(path)) return { missing: 'No JSON of 307e674 kept for this kind.' };
  const kept = JSON.parse(readFileSync(path, 'utf8')) as { output?: unknown; missing?: string };
  return kept.missing !== undefined ? { missing: kept.missing } : { output: kept.output };
}

async function main(): Promise<void> {
  mkdirSync(JSON_DIR, { recursive: true });
  const only = process.argv.slice(2);
  const kinds = only.length ? KINDS.filter((k) => only.includes(k.kind)) : KINDS;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage({ viewport: { width: WIDTH, height: 600 } });
    const draw = async (html: string, path: string) => {
      await page.setContent(html, { waitUntil: 'load' });
      await page.locator('#shot').screenshot({ path });
    };
    for (const kind of kinds) {
      const now = await after(kind);
      writeFileSync(`${JSON_DIR}${kind.kind}-after.json`, `${JSON.stringify({ output: now }, null, 2)}\n`);
      await draw(pageFor(kind, now), `${OUT}${kind.kind}-after.png`);
      const then = before(kind.kind);
      await draw(
        'output' in then ? pageFor(kind, then.output) : missingPage(then.missing),
        `${OUT}${kind.kind}-before.png`,
      );
      console.log(`drew ${kind.kind}`);
    }
  } finally {
    await browser.close();
  }
}

await main();
