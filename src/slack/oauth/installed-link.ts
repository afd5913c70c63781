import { createHmac, timingSafeEqual } from 'node:crypto';
import type { HttpRoute } from '../http-edge.js';
import { escapeHtml, htmlPage, type PageLinks } from './html-page.js';
import { INSTALL_PATH, type InstalledIn, successPage } from './install-pages.js';

/**
 * Redirect-after-success: the OAuth callback answers 303 to /slack/installed with what the success page names,
 * signed with SLACK_STATE_SECRET. Reloading that page (or opening it from the history) shows it again, where
 * reloading the callback itself would re-run the one-time state check and say the link had expired. The
 * signature keeps anyone from making the page name a workspace of their choosing.
 */

export const INSTALLED_PATH = '/slack/installed';

/** Longer than any InstalledIn we sign (a name is capped at 120 characters): anything above is not ours. */
const MAX_LINK_CHARS = 2_000;
const CONTEXT = 'docs-agent installed-page v1\n';

/** The headers of every install page (installer.ts): HTML, never cached, no script, no framing. */
export const PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
};

function signature(payload: string, secret: string): string {
  return createHmac('sha256', secret)
    .update(CONTEXT + payload)
    .digest('base64url');
}

/** The success page's address for `installed`: path and signed query. */
export function installedLink(installed: InstalledIn, secret: string): string {
  const payload = Buffer.from(
    JSON.stringify({
      n: installed.name,
      o: installed.isEnterpriseInstall,
      t: installed.teamId,
      e: installed.enterpriseId,
      a: installed.appId,
    }),
  ).toString('base64url');
  return `${INSTALLED_PATH}?i=${payload}&s=${signature(payload, secret)}`;
}

/** What a link of ours says, or undefined for anything else (unsigned, altered, too long, malformed). */
export function readInstalledLink(url: URL, secret: string): InstalledIn | undefined {
  const payload = url.searchParams.get('i') ?? '';
  const given = Buffer.from(url.searchParams.get('s') ?? '');
  if (payload === '' || payload.length > MAX_LINK_CHARS || !/^[A-Za-z0-9_-]+$/.test(payload))
    return undefined;
  const expected = Buffer.from(signature(payload, secret));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const v = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const text = (x: unknown) => (typeof x === 'string' ? x : undefined);
    return {
      name: text(v.n) ?? '',
      isEnterpriseInstall: v.o === true,
      teamId: text(v.t),
      enterpriseId: text(v.e),
      appId: text(v.a),
    };
  } catch {
    return undefined;
  }
}

const html = (status: number, body: string) => ({
  status,
  body,
  contentType: 'text/html; charset=utf-8',
  headers: PAGE_HEADERS,
});

/** GET /slack/installed (the success page, as often as it is opened) and GET / (to the install page). */
export function installedRoutes(secret: string, links?: PageLinks): HttpRoute[] {
  return [
    {
      path: INSTALLED_PATH,
      handle: (url) => {
        const installed = readInstalledLink(url, secret);
        if (installed) return html(200, successPage(installed, links));
        return html(
          404,
          htmlPage({
            links,
            title: 'Nothing to show here · docs-agent',
            body: `<h1>Nothing to show here</h1>
<p>This address shows the page that follows an installation, and this link is not one docs-agent made (or it
was cut short). To add docs-agent to a workspace, start from the install page.</p>
<p class="actions"><a class="button" href="${escapeHtml(INSTALL_PATH)}">Go to the install page</a></p>`,
          }),
        );
      },
    },
    {
      // The deployment's address on its own leads to "Add to Slack", not to an empty 404.
      path: '/',
      handle: () => ({
        status: 302,
        body: '',
        contentType: 'text/plain',
        headers: { location: INSTALL_PATH },
      }),
    },
  ];
}
