import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = join(import.meta.dirname, '..', '..');
const SCHEMA = join(ROOT, '..', 'shared', 'reference', 'slack-manifest.schema.json');

const manifest = parse(readFileSync(join(ROOT, 'manifest.yml'), 'utf8'));

describe('manifest.yml', () => {
  it('validates against Slack’s published manifest schema', () => {
    const schema = JSON.parse(readFileSync(SCHEMA, 'utf8'));
    delete schema.$schema;
    const ajv = new Ajv({ strict: false, allErrors: true });
    const validate = ajv.compile(schema);
    const valid = validate(manifest);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('declares every slash command the bot registers', () => {
    const commands = manifest.features.slash_commands.map((c: { command: string }) => c.command);
    expect(commands).toEqual(expect.arrayContaining(['/docs-agent', '/docs-views']));
  });

  it('keeps every usage hint short enough for Slack’s autocomplete to show whole', () => {
    for (const command of manifest.features.slash_commands as Array<{ usage_hint?: string }>)
      expect((command.usage_hint ?? '').length).toBeLessThanOrEqual(64);
  });

  it('gives every bot scope a comment saying why', () => {
    const text = readFileSync(join(ROOT, 'manifest.yml'), 'utf8');
    const scopes: string[] = manifest.oauth_config.scopes.bot;
    expect(scopes.length).toBeGreaterThan(0);
    for (const scope of scopes) {
      const line = text.split('\n').findIndex((l) => l.trim() === `- ${scope}`);
      expect(text.split('\n')[line - 1]?.trim().startsWith('#'), `${scope} has no comment`).toBe(true);
    }
  });
});
