import { SecretIndex, scrubShapes } from './secret-scrubber.js';

/** The variables whose values are secrets, whatever their shape. */
const SECRET_VARIABLES = [
  'SLACK_BOT_TOKEN',
  'SLACK_SIGNING_SECRET',
  'SLACK_APP_TOKEN',
  'SLACK_CLIENT_SECRET',
  'SLACK_STATE_SECRET',
  'DOCS_API_KEY',
  'GITHUB_TOKEN',
  'DATA_ENCRYPTION_KEY',
  'DATA_ENCRYPTION_KEYS_OLD',
] as const;

/**
 * The secret values of an environment as written, read before (or without) a valid config: each secret
 * variable (and its comma-separated parts), the keys after ':' in DOCS_CHANNEL_PROJECTS and the password of
 * every Redis URL. What config errors and `npm run doctor` must never print.
 */
export function envSecrets(env: NodeJS.ProcessEnv): string[] {
  const values: string[] = [];
  for (const name of SECRET_VARIABLES) {
    const value = env[name]?.trim();
    if (!value) continue;
    values.push(value, ...value.split(',').map((part) => part.trim()));
  }
  for (const entry of (env.DOCS_CHANNEL_PROJECTS ?? '').slice(0, 100_000).split(','))
    values.push(
      ...entry
        .split(':')
        .slice(1)
        .map((part) => part.trim()),
    );
  for (const name of ['REDIS_URL', 'REDIS_CLUSTER']) {
    for (const url of (env[name] ?? '').split(',')) {
      try {
        const password = new URL(url.trim()).password;
        if (password) values.push(password, decodeURIComponent(password));
      } catch {
        // Not a URL: nothing to hide in it.
      }
    }
  }
  // Short fragments would scrub ordinary words: a secret is at least 4 characters.
  return [...new Set(values.filter((value) => value.length >= 4))];
}

/** A scrubber for text about this environment: its secret values in every form, and every credential shape. */
export function envScrubber(env: NodeJS.ProcessEnv): (text: string) => string {
  const index = new SecretIndex();
  for (const secret of envSecrets(env)) index.add(secret);
  return (text) => scrubShapes(index.scrub(text));
}
