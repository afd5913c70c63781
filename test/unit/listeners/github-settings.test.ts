import { describe, expect, it } from 'vitest';
import { preferenceCommand } from '../../../src/slack/listeners/commands/preference-subcommands.js';
import {
  GITHUB_MODAL_CALLBACK_ID,
  githubModalView,
  parseGithubSubmission,
} from '../../../src/slack/messages/github-connect-modal.js';
import { SETTINGS_HELP_TEXT } from '../../../src/slack/messages/tenant-preferences.js';

describe('/docs-agent settings github (issue 44: a token only in a form)', () => {
  it('opens the form whatever follows `github`, and keeps none of it', () => {
    for (const text of [
      'settings github',
      'settings github github_pat_abc0123456789 acme',
      'settings github x y z',
    ])
      expect(preferenceCommand(text)).toEqual({ kind: 'settings', action: 'github' });
    expect(preferenceCommand('settings github disconnect')).toEqual({
      kind: 'settings',
      action: 'github-disconnect',
    });
  });

  it('reads the token and owners from the submitted form only', () => {
    const view = githubModalView();
    expect(view.callback_id).toBe(GITHUB_MODAL_CALLBACK_ID);
    expect(JSON.stringify(view)).not.toContain('initial_value');
    expect(
      parseGithubSubmission({
        callback_id: GITHUB_MODAL_CALLBACK_ID,
        state: {
          values: {
            github_token: { github_token_input: { value: ' github_pat_abc0123456789 ' } },
            github_owners: { github_owners_input: { value: 'acme, , acme-docs' } },
          },
        },
      }),
    ).toEqual({ token: 'github_pat_abc0123456789', owners: ['acme', 'acme-docs'] });
    expect(parseGithubSubmission({ callback_id: 'other' })).toBeUndefined();
  });

  it('help names the form, not a token argument', () => {
    expect(SETTINGS_HELP_TEXT).toContain('`/docs-agent settings github`: opens a private form');
    expect(SETTINGS_HELP_TEXT).not.toContain('<token>');
  });
});
