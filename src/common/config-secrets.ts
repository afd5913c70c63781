import type { Config } from './config.js';

/** The values that must never appear in logs or Slack messages. */
export function secretsOf(config: Config): string[] {
  const redisPassword = redisPasswordOf(config.redisUrl);
  return [
    config.docs.apiKey,
    ...config.docs.projectKeys.values(),
    config.slack.botToken,
    config.slack.signingSecret,
    config.slack.appToken,
    config.github.token,
    config.oauth?.clientSecret,
    config.oauth?.stateSecret,
    config.oauth?.encryptionKey,
    ...(config.oauth?.oldEncryptionKeys?.split(',').map((key) => key.trim()) ?? []),
    // Both forms: the URL may appear as typed (percent-encoded) or a client may log the decoded password.
    ...(redisPassword ? [redisPassword.raw, redisPassword.decoded] : []),
    // Every non-empty one, however short: the logger scrubs short secrets too.
  ].filter((value): value is string => typeof value === 'string' && value.length > 0);
}

/** The password of a `redis://user:password@host` URL, as written and decoded; undefined when there is none. */
function redisPasswordOf(url: string | undefined): { raw: string; decoded: string } | undefined {
  if (!url) return undefined;
  let raw: string;
  try {
    raw = new URL(url).password;
  } catch {
    return undefined;
  }
  if (raw === '') return undefined;
  let decoded = raw;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    // Not valid percent-encoding: the raw form is what appears anywhere.
  }
  return { raw, decoded };
}
