import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../src/common/config.js';

/* docs/operating.md's minimal set-ups start the bot as they stand, and its HTTP example names every command. */

const ROOT = join(import.meta.dirname, '..', '..');
const doc = readFileSync(join(ROOT, 'docs', 'operating.md'), 'utf8');
const manifest = parse(readFileSync(join(ROOT, 'manifest.yml'), 'utf8'));

function section(heading: string): string {
  const start = doc.indexOf(`\n${heading}\n`);
  expect(start, heading).toBeGreaterThan(-1);
  const next = doc.indexOf('\n## ', start + heading.length + 2);
  return doc.slice(start, next === -1 ? undefined : next);
}

const blocks = (text: string, lang: string) =>
  [...text.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1] as string);

/** Values that pass the config's checks, for the names a block lists. */
const VALID: Record<string, string> = {
  SLACK_BOT_TOKEN: 'xoxb-1-2-abc',
  SLACK_APP_TOKEN: 'xapp-1-A0-1-abc',
  SLACK_SIGNING_SECRET: 'signing-secret-0123',
  DOCS_API_KEY: 'svc_abcdefghijklmnop',
  DOCS_PROJECT_ID: 'proj_1',
  SLACK_CLIENT_ID: '1111.2222',
  SLACK_CLIENT_SECRET: 'client-secret-0123',
  SLACK_STATE_SECRET: 'state-secret-0123456789-0123456789',
  DATA_ENCRYPTION_KEY: Buffer.alloc(32, 3).toString('base64'),
  REDIS_URL: 'redis://localhost:6379',
};

describe('docs/operating.md', () => {
  it('opens with the minimal set-ups', () => {
    expect(/^## .*$/m.exec(doc)?.[0]).toBe('## Minimal set-ups');
  });

  it('Socket Mode: 4 variables that start the bot, each one needed', () => {
    const names = [...(blocks(section('## Minimal set-ups'), 'sh')[0] ?? '').matchAll(/^([A-Z_]+)=/gm)].map(
      (m) => m[1] as string,
    );
    expect(names).toHaveLength(4);
    const env = Object.fromEntries(names.map((n) => [n, VALID[n] as string]));
    expect(loadConfig(env).slack.appToken).toBe(VALID.SLACK_APP_TOKEN);
    for (const name of names) expect(() => loadConfig({ ...env, [name]: '' }), name).toThrow();
  });

  it('OAuth mode: 6 variables that start it with installs kept in Redis, each mode variable needed', () => {
    const names = [...(blocks(section('## Minimal set-ups'), 'sh')[1] ?? '').matchAll(/^([A-Z_]+)=/gm)].map(
      (m) => m[1] as string,
    );
    expect(names).toHaveLength(6);
    const env = Object.fromEntries(names.map((n) => [n, VALID[n] as string]));
    const config = loadConfig(env);
    expect(config.oauth).toBeDefined();
    expect(config.redisUrl).toBe(VALID.REDIS_URL);
    for (const name of names.filter((n) => n !== 'REDIS_URL'))
      expect(() => loadConfig({ ...env, [name]: '' }), name).toThrow();
  });

  it('the HTTP-mode example points every command of the manifest at /slack/events', () => {
    const example = parse(blocks(section('## HTTP mode'), 'yaml')[0] ?? '');
    const commands = example.features.slash_commands.map((c: { command: string }) => c.command);
    expect(commands).toEqual(manifest.features.slash_commands.map((c: { command: string }) => c.command));
    for (const c of example.features.slash_commands) expect(c.url).toMatch(/\/slack\/events$/);
    expect(example.settings.socket_mode_enabled).toBe(false);
    expect(doc).not.toMatch(/both commands/);
  });
});
