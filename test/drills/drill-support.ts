import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { FAKE_API_KEY } from '../support/fake-docs.js';
import type { FakeSlack, StoredMessage } from '../support/fake-slack.js';
import { BOT_TOKEN, SIGNING_SECRET, type TestApp } from '../support/test-app.js';

const DRILLS_DIR = join(process.cwd(), '.drills');
const PARTS_DIR = join(DRILLS_DIR, 'parts');

/**
 * Records one drill's figures in `.drills/parts/<drill>.json` and rebuilds `.drills/last-run.json` from all
 * parts (each drill file runs in its own worker; a write-then-rename keeps the summary whole).
 */
export function recordDrill(drill: string, figures: Record<string, unknown>): void {
  mkdirSync(PARTS_DIR, { recursive: true });
  const part = { drill, finishedAt: new Date().toISOString(), ...figures };
  writeAtomically(join(PARTS_DIR, `${drill}.json`), part);
  const parts = readdirSync(PARTS_DIR)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => JSON.parse(readFileSync(join(PARTS_DIR, name), 'utf8')) as Record<string, unknown>);
  writeAtomically(join(DRILLS_DIR, 'last-run.json'), {
    generatedAt: new Date().toISOString(),
    node: process.version,
    drills: parts,
  });
}

function writeAtomically(path: string, value: unknown): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(value, null, 2)}\n`);
  renameSync(tmp, path);
}

/** Collects unhandled rejections while a drill runs; `stop()` resolves what was seen. */
export function watchUnhandledRejections(): { seen: unknown[]; stop(): void } {
  const seen: unknown[] = [];
  const listener = (reason: unknown) => seen.push(reason);
  process.on('unhandledRejection', listener);
  return { seen, stop: () => process.off('unhandledRejection', listener) };
}

/** Secrets that must never appear in logs or anything sent to Slack. */
export const SECRETS = [FAKE_API_KEY, BOT_TOKEN, SIGNING_SECRET];

/**
 * Scans the app's captured logs (LOG_LEVEL=debug) and everything it sent to Slack for the docs API key, the
 * bot token, the signing secret or anything shaped like a Slack token. Resolves the number of places scanned.
 */
export function expectNoSecretsLeaked(app: TestApp, extra: string[] = []): number {
  const haystacks = [...app.logs, app.slack.everythingSent(), ...extra];
  for (const text of haystacks) {
    for (const secret of SECRETS)
      expect(text.includes(secret), `secret leaked: ${text.slice(0, 200)}`).toBe(false);
    expect(/xox[abprse]-[A-Za-z0-9-]{6,}/.test(text), `token-like string leaked: ${text.slice(0, 200)}`).toBe(
      false,
    );
  }
  // The bot token must only ever travel in the Authorization header.
  for (const call of app.slack.calls) {
    expect(call.authorization === undefined || call.authorization === `Bearer ${BOT_TOKEN}`).toBe(true);
  }
  return haystacks.length;
}

/**
 * Every message that lands in the fake Slack from now on, kept after a `chat.delete` removes it from the
 * fake's live list: duplicates are counted before the bot's duplicate sweep deletes them.
 */
export function recordLandedPosts(slack: FakeSlack): StoredMessage[] {
  const landed: StoredMessage[] = [];
  const push = slack.messages.push.bind(slack.messages);
  slack.messages.push = (...items: StoredMessage[]) => {
    landed.push(...items);
    return push(...items);
  };
  return landed;
}

/** The dedupe key a bot message carries in its metadata (`card:…`, `terminal:<job>:<generation>`, …). */
export const keyOf = (m: StoredMessage): string => String(m.metadata?.event_payload?.key ?? '');

/** Every message the bot posted with this dedupe key (terminal replies carry `terminal:<job>:<generation>`). */
export function messagesWithKey(app: TestApp, key: string): StoredMessage[] {
  return app.slack.messages.filter((m) => m.metadata?.event_payload?.key === key);
}

/** The card (a bot message whose blocks name the job id). */
export function cardOf(app: TestApp, jobId: string): StoredMessage | undefined {
  return app.slack.messages.find(
    (m) =>
      m.metadata?.event_payload?.key?.toString().startsWith('card:') &&
      JSON.stringify(m.blocks).includes(jobId),
  );
}

export function cards(app: TestApp): StoredMessage[] {
  return app.slack.messages.filter((m) => String(m.metadata?.event_payload?.key ?? '').startsWith('card:'));
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
