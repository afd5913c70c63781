import { cleanUntrusted } from '../../common/untrusted-text.js';
import { normalisePath } from '../health/evidence.js';

/** Longer links are not ours to unfurl (Slack's own URLs are far shorter; nothing is parsed past this). */
const MAX_LINK_CHARS = 2000;

/**
 * The docs page a pasted link points at: `/path` (normalised as the analytics paths are) when the link is
 * on DOCS_SITE_URL's host and under its path, else undefined. Query and fragment are not part of a page;
 * credentials in a link, other schemes and other hosts are refused.
 */
export function docsPagePath(link: string, siteUrl: string | undefined): string | undefined {
  if (!siteUrl || link.length > MAX_LINK_CHARS) return undefined;
  let url: URL;
  let site: URL;
  try {
    url = new URL(link);
    site = new URL(siteUrl);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.host.toLowerCase() !== site.host.toLowerCase() || url.username || url.password) return undefined;
  const base = normalisePath(site.pathname);
  let path: string;
  try {
    path = normalisePath(cleanUntrusted(decodeURI(url.pathname)).text);
  } catch {
    return undefined;
  }
  if (base !== '/' && path !== base && !path.startsWith(`${base}/`)) return undefined;
  return path;
}
