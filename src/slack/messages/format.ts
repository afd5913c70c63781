import { isSafeHttpUrl } from '../../common/untrusted-text.js';
import { escapeMrkdwn } from '../markup.js';

// The copy system (src/slack/copy): re-exported for the builders that import them from here.
export { displayCount, displayRatio, formatCount } from '../copy/counts.js';
export { formatDuration, slackTime } from '../copy/dates.js';

/** A link whose label is escaped; only http(s) URLs become links, anything else is shown as text. */
export function mrkdwnLink(url: string, label: string): string {
  const safeLabel = escapeMrkdwn(label).replace(/\|/g, '¦');
  if (!isSafeHttpUrl(url)) return safeLabel;
  return `<${url}|${safeLabel}>`;
}

/** `https://github.com/acme/docs` → `acme/docs`; anything else unchanged. */
export function repositoryLabel(repository: string): string {
  const match = /^https?:\/\/[^/]+\/([^/]+\/[^/#?]+?)(?:\.git)?\/?$/i.exec(repository);
  return match?.[1] ?? repository;
}

export function repositoryBranchUrl(repository: string, ref: string): string | undefined {
  // Owner and name as GitHub allows them: nothing else (`<`, `|`, spaces) is put into a link.
  if (!/^https:\/\/github\.com\/[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}\/?$/i.test(repository))
    return undefined;
  return `${repository.replace(/\/+$/, '').replace(/\.git$/, '')}/tree/${ref.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * A page of the docs site: each path segment percent-encoded (`encodeURI` leaves `:` and `/` alone, so a
 * path holding `https://…` put a second URL inside ours); undefined without a site or when too long.
 */
export function docsPageUrl(siteUrl: string | undefined, path: string, maxChars: number): string | undefined {
  if (!siteUrl) return undefined;
  const segments = (path.startsWith('/') ? path.slice(1) : path).split('/');
  const url = `${siteUrl.replace(/\/+$/, '')}/${segments.map((s) => encodeURIComponent(s)).join('/')}`;
  return url.length <= maxChars ? url : undefined;
}
