import type { ModalView } from '@slack/types';
import { submittedText } from '../markup.js';

/**
 * The GitHub token form of `/docs-agent settings github` (OAuth mode): the only place a GitHub token is
 * given to the bot. The token is checked, sealed and shown again only by its last four characters.
 */
export const GITHUB_MODAL_CALLBACK_ID = 'docs_github_connect';
export const GITHUB_TOKEN_BLOCK = 'github_token';
export const GITHUB_TOKEN_ACTION = 'github_token_input';
export const GITHUB_OWNERS_BLOCK = 'github_owners';
export const GITHUB_OWNERS_ACTION = 'github_owners_input';
/** Longer than any token GitHub issues: what is longer is refused as malformed, never cut. */
const FIELD_MAX = 300;

export function githubModalView(): ModalView {
  return {
    type: 'modal',
    callback_id: GITHUB_MODAL_CALLBACK_ID,
    title: { type: 'plain_text', text: 'Connect GitHub' },
    submit: { type: 'plain_text', text: 'Connect' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      {
        type: 'input',
        block_id: GITHUB_TOKEN_BLOCK,
        label: { type: 'plain_text', text: 'GitHub token' },
        hint: {
          type: 'plain_text',
          text: 'Read-only (pull requests, checks). Checked with GitHub before it is saved, stored encrypted, and only ever shown again by its last four characters.',
        },
        element: {
          type: 'plain_text_input',
          action_id: GITHUB_TOKEN_ACTION,
          max_length: 255,
          placeholder: { type: 'plain_text', text: 'github_pat_… or ghp_…' },
        },
      },
      {
        type: 'input',
        block_id: GITHUB_OWNERS_BLOCK,
        optional: true,
        label: { type: 'plain_text', text: 'Only for these owners' },
        hint: {
          type: 'plain_text',
          text: 'GitHub users or organisations, separated by commas. Empty: any repository of this workspace’s jobs.',
        },
        element: {
          type: 'plain_text_input',
          action_id: GITHUB_OWNERS_ACTION,
          max_length: 255,
          placeholder: { type: 'plain_text', text: 'acme, acme-docs' },
        },
      },
    ],
  };
}

/** A submitted GitHub form as Slack sends it back (the parts read here). */
export interface SubmittedGithubView {
  callback_id?: string;
  state?: { values?: Record<string, Record<string, { value?: string | null } | undefined>> };
}

/** The token and owners of a submitted form; undefined when the form is not ours. */
export function parseGithubSubmission(
  view: SubmittedGithubView,
): { token: string; owners: string[] } | undefined {
  if (view.callback_id !== GITHUB_MODAL_CALLBACK_ID) return undefined;
  const values = view.state?.values ?? {};
  const token = submittedText(values[GITHUB_TOKEN_BLOCK]?.[GITHUB_TOKEN_ACTION]?.value, FIELD_MAX);
  const owners = submittedText(values[GITHUB_OWNERS_BLOCK]?.[GITHUB_OWNERS_ACTION]?.value, FIELD_MAX)
    .split(',')
    .flatMap((owner) => (owner.trim() ? [owner.trim()] : []));
  return { token, owners };
}
