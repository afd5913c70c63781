import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { BOT_SCOPE_REASONS, BOT_SCOPES } from '../../src/slack/oauth/scopes.js';

const manifest = parse(readFileSync(join(import.meta.dirname, '..', '..', 'manifest.yml'), 'utf8'));

describe('the scopes "Add to Slack" asks for', () => {
  it("are exactly manifest.yml's bot scopes, in its order", () => {
    expect(BOT_SCOPES).toEqual(manifest.oauth_config.scopes.bot);
  });

  it('each comes with one short plain-language reason for the install page', () => {
    for (const { scope, reason } of BOT_SCOPE_REASONS) {
      expect(reason.length, scope).toBeGreaterThan(20);
      expect(reason.length, scope).toBeLessThanOrEqual(100);
      expect(reason, scope).toMatch(/\.$/);
    }
    expect(new Set(BOT_SCOPES).size).toBe(BOT_SCOPES.length);
  });
});
