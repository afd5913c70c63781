import type { SecretKind } from '../../common/secret-shapes.js';

const NAMES: Record<SecretKind, string> = {
  github: 'a GitHub token',
  slack: 'a Slack token',
  docs: 'a docs admin key',
  cloud: 'a cloud access key',
  pem: 'a private key',
  unchecked: 'more text than I can check for credentials',
};

/** Where a credential of each kind is given to the bot instead: a private form, sealed when saved. */
const WHERE: Partial<Record<SecretKind, string>> = {
  github: ' To connect GitHub, use `/docs-agent settings github`: it opens a private form.',
  docs: ' To connect a docs project, use `/docs-agent connect`: it opens a private form.',
};

/**
 * Said privately when text held a credential: what happened and what to do, naming only its kind (the
 * secret itself is never echoed).
 */
export function secretRefusalText(kind: SecretKind): string {
  if (kind === 'unchecked')
    return `:no_entry: I didn't start or send anything: that was ${NAMES.unchecked}. Shorten it and try again.`;
  return `:no_entry: I didn't start or send anything: your text looks like it holds ${NAMES[kind]}, and I never take credentials in messages, so I dropped it without saving it. If it was real, revoke it now.${WHERE[kind] ?? ''}`;
}

/** Under a form's field that holds a credential: the form stays open, nothing was saved or sent. */
export function secretInFormText(kind: SecretKind): string {
  if (kind === 'unchecked') return `I can't take this: it is ${NAMES.unchecked}. Shorten it.`;
  return `I can't take this: it looks like it holds ${NAMES[kind]}, and instructions never carry credentials. Remove it (and revoke it if it was real).`;
}
