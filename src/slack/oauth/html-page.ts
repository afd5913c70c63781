/**
 * The frame every install page shares: a complete HTML document with `lang`, a title, a viewport for phones
 * (readable at 320 px: no fixed widths, long words wrap), a visible keyboard focus ring, and no script.
 */

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text safe inside an element or a quoted attribute. Every interpolation into a page goes through it. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ENTITIES[ch] ?? ch);
}

const STYLE = [
  '*{box-sizing:border-box}',
  'body{margin:0;background:#f6f8fa;color:#1f2328;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}',
  'main{max-width:42rem;margin:0 auto;padding:1.5rem 1rem 3rem;overflow-wrap:anywhere}',
  'h1{font-size:1.5rem;line-height:1.25;margin:.5rem 0 1rem}',
  'h2{font-size:1.125rem;margin:1.75rem 0 .5rem}',
  'ul,ol{padding-left:1.25rem}',
  'li{margin:.35rem 0}',
  'code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9em;background:#eaeef2;padding:0 .25em;border-radius:4px}',
  'a{color:#0b50c9}',
  '.card{background:#fff;border:1px solid #d0d7de;border-radius:12px;padding:1rem 1.25rem}',
  '.actions{margin:1.5rem 0}',
  '.button{display:inline-block;max-width:100%;padding:.75rem 1.25rem;border-radius:8px;background:#1d4ed8;color:#fff;font-weight:600;text-decoration:none}',
  '.button:hover{background:#1e3a8a}',
  '.secondary{display:inline-block;margin:.75rem 0 0 .25rem}',
  // Slack's own Add to Slack button: white, Slack's mark, Lato-like bold text (Slack's button generator).
  '.slack-button{display:inline-flex;align-items:center;justify-content:center;height:48px;max-width:100%;padding:0 1.5rem;border:1px solid #ddd;border-radius:4px;background:#fff;color:#000;font-weight:600;text-decoration:none}',
  '.slack-button svg{height:20px;width:20px;margin-right:12px}',
  '.slack-button:hover{border-color:#1d1c1d}',
  // The focus ring: keyboard users must see where they are (WCAG 2.4.7); high contrast on both backgrounds.
  'a:focus-visible{outline:3px solid #b45309;outline-offset:3px;border-radius:4px}',
  '.muted{color:#57606a;font-size:.95em}',
].join('\n');

export interface PageParts {
  title: string;
  /** Already-escaped HTML for inside <main>. */
  body: string;
  links?: PageLinks;
}

/** The operator's privacy policy and support pages (PRIVACY_URL, SUPPORT_URL), at the foot of every page. */
export interface PageLinks {
  privacyUrl?: string | undefined;
  supportUrl?: string | undefined;
}

function footer(links: PageLinks | undefined): string {
  const parts = [
    links?.privacyUrl ? `<a href="${escapeHtml(links.privacyUrl)}">Privacy policy</a>` : '',
    links?.supportUrl ? `<a href="${escapeHtml(links.supportUrl)}">Support</a>` : '',
  ].filter(Boolean);
  return parts.length > 0 ? `\n<footer class="muted"><p>${parts.join(' · ')}</p></footer>` : '';
}

export function htmlPage({ title, body, links }: PageParts): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>
${STYLE}
</style>
</head>
<body>
<main>
${body}${footer(links)}
</main>
</body>
</html>
`;
}

/** A Slack id (T…, E…, A…) as it may appear inside a link we build; anything else is left out. */
export function isSlackId(value: string | undefined): value is string {
  return value !== undefined && /^[A-Z0-9]{2,32}$/.test(value);
}
