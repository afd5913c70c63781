import { isSafeHttpUrl } from '../../common/untrusted-text.js';
import { escapeMrkdwn } from '../markup.js';

// One formatter for dates and durations (dates.ts); re-exported for the builders that import them from here.
export { formatDuration, slackTime } from './dates.js';

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
 * A count as shown: the analytics spec types counts as any `number`, so a negative, fractional or non-finite
 * one (spec-valid) is shown as a whole number ≥ 0 rather than breaking a bar or a sentence.
 */
export function displayCount(value: number): number {
  return Number.isFinite(value) && value > 0 ? Math.round(value) : 0;
}

/** A ratio as shown: 0..1 whatever the platform sent. */
export function displayRatio(value: number): number {
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
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
