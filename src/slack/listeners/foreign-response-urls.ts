import type { AnyMiddlewareArgs } from '@slack/bolt';
import type { SlackDeps } from './deps.js';

export type ForeignResponseUrlsDeps = Pick<SlackDeps, 'logger' | 'responseUrlOrigins'>;

type MiddlewareArgs = AnyMiddlewareArgs & {
  next: () => Promise<void>;
  ack?: (response?: unknown) => Promise<void>;
};

/** The `response_url`s a request carries: commands and interactions one, view submissions a list. */
function responseUrlsOf(body: unknown): unknown[] {
  const b = (body ?? {}) as { response_url?: unknown; response_urls?: unknown };
  const listed = Array.isArray(b.response_urls)
    ? b.response_urls.map((r) => (r as { response_url?: unknown } | null)?.response_url)
    : [];
  return [...(b.response_url === undefined ? [] : [b.response_url]), ...listed];
}

/**
 * Answers (and owed reports) are POSTed to a request's `response_url`, so one pointing anywhere but Slack's
 * hooks host (or the configured SLACK_API_URL's, for a proxy or a test's fake) would make the bot send a
 * report, reader text included, to a stranger. Slack never sends one; a request that does is refused.
 */
export function refuseForeignResponseUrls(deps: ForeignResponseUrlsDeps) {
  const allowed = new Set(deps.responseUrlOrigins ?? []);
  return async (args: MiddlewareArgs): Promise<void> => {
    const urls = responseUrlsOf(args.body);
    const foreign = urls.some((url) => typeof url !== 'string' || !allowed.has(originOf(url)));
    if (allowed.size === 0 || !foreign) return args.next();
    deps.logger.warn('refused a request whose response_url is not on Slack’s hooks host');
    await args.ack?.();
  };
}

function originOf(url: string): string {
  if (url.length > 2000 || !URL.canParse(url)) return '';
  const parsed = new URL(url);
  return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.origin : '';
}
