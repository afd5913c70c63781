/**
 * Slack's text as Slack draws it: mrkdwn (links, mentions, date tokens, styles, quotes, code), emoji by name
 * and plain text. Every piece of text is escaped before it is formatted, and no regex here can backtrack on
 * what the bot quotes (each is linear: bounded runs of one character class).
 */

/** The playground's people, as Slack shows a mention of them. */
export const NAMES: Record<string, string> = { U0DEMOALEX: 'alex', U0DOCSBOT: 'docs-agent' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Every emoji the bot writes or reacts with (and the common ones people use), by Slack's short name. */
const EMOJI: Record<string, string> = {
  white_check_mark: '✅',
  heavy_check_mark: '✔️',
  x: '❌',
  warning: '⚠️',
  rotating_light: '🚨',
  information_source: 'ℹ️',
  grey_question: '❔',
  octagonal_sign: '🛑',
  no_entry: '⛔',
  zzz: '💤',
  tada: '🎉',
  wave: '👋',
  red_circle: '🔴',
  large_green_circle: '🟢',
  large_purple_circle: '🟣',
  white_large_square: '⬜',
  hourglass: '⌛',
  hourglass_flowing_sand: '⏳',
  gear: '⚙️',
  file_cabinet: '🗄️',
  bell: '🔔',
  no_bell: '🔕',
  eyes: '👀',
  rocket: '🚀',
  bar_chart: '📊',
  chart_with_upwards_trend: '📈',
  chart_with_downwards_trend: '📉',
  mag: '🔍',
  link: '🔗',
  memo: '📝',
  robot_face: '🤖',
  bust_in_silhouette: '👤',
  arrows_counterclockwise: '🔄',
  arrow_forward: '▶️',
  speech_balloon: '💬',
  thumbsdown: '👎',
  thumbsup: '👍',
  '+1': '👍',
  '-1': '👎',
  books: '📚',
  calendar: '📅',
  pushpin: '📌',
  sparkles: '✨',
  bulb: '💡',
};

/** An emoji by name; a skin tone suffix (`:+1::skin-tone-2:`) is dropped; an unknown name stays as text. */
export const emoji = (name: string) => EMOJI[name] ?? `:${escapeHtml(name)}:`;
export const knownEmoji = (name: string) => EMOJI[name] !== undefined;

/**
 * Slack's mrkdwn: `<url|label>` links, `<@U…>` / `<#C…>` / `<!here>` mentions, `<!date^…>` times (drawn in
 * the viewer's zone by the page), *bold*, _italic_, ~strike~, `code`, ``` blocks and `>` quotes.
 */
export function mrkdwn(source: string): string {
  const parts = source.split(/(<[^<>\n]{1,500}>)/g);
  const html = parts.map(token).join('');
  const lines = html.replace(/```([\s\S]*?)```/g, (_m, code: string) => `<pre>${code}</pre>`).split('\n');
  // Consecutive `>` lines make one quote, as in Slack.
  const out: string[] = [];
  let quote: string[] = [];
  const flush = () => {
    if (quote.length) out.push(`<blockquote>${quote.join('<br>')}</blockquote>`);
    quote = [];
  };
  for (const line of lines) {
    if (line.startsWith('&#62;')) {
      quote.push(line.slice(5).replace(/^ /, ''));
      continue;
    }
    flush();
    out.push(line);
  }
  flush();
  return out.join('<br>').replace(/<\/blockquote><br>/g, '</blockquote>');
}

function token(part: string): string {
  const match = /^<([^<>|]+)(?:\|([^<>]*))?>$/.exec(part);
  if (!match) return inline(escapeHtml(decodeEntities(part)));
  const [, target = '', label] = match;
  if (target.startsWith('@'))
    return `<span class="mention">@${escapeHtml(label ?? NAMES[target.slice(1)] ?? target.slice(1))}</span>`;
  if (target.startsWith('#')) return `<span class="mention">#${escapeHtml(label ?? 'docs')}</span>`;
  if (target.startsWith('!date^')) return dateToken(target, label ?? '');
  if (target.startsWith('!'))
    return `<span class="mention">@${escapeHtml(target.slice(1).split('^')[0] ?? '')}</span>`;
  const href = decodeEntities(target);
  return link(href, inline(escapeHtml(decodeEntities(label ?? target))));
}

/** A link drawn as a link: http(s) and mailto only, everything else goes nowhere. */
export function link(href: string, labelHtml: string): string {
  const safe = /^(https?:|mailto:)/i.test(href) ? href : '#';
  return `<a href="${escapeHtml(safe)}" target="_blank" rel="noopener">${labelHtml}</a>`;
}

/**
 * `<!date^1700000000^{date_short_pretty} at {time}|fallback>`: a `<time>` the page script rewrites in the
 * viewer's own zone; the fallback stays for a browser without script.
 */
function dateToken(target: string, fallback: string): string {
  const [, seconds = '', format = ''] = target.split('^');
  if (!/^\d{1,12}$/.test(seconds)) return escapeHtml(decodeEntities(fallback));
  return `<time class="slack-date" data-epoch="${seconds}" data-format="${escapeHtml(decodeEntities(format))}">${escapeHtml(decodeEntities(fallback))}</time>`;
}

function decodeEntities(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** Inline styles on already-escaped text (the markers are plain characters, so no tag can be injected). */
function inline(escaped: string): string {
  return escaped
    .replace(/`([^`\n]+)`/g, '<code>$1</code>')
    .replace(/(^|[\s(])\*([^*\n]+)\*/g, '$1<b>$2</b>')
    .replace(/(^|[\s(])_([^_\n]+)_/g, '$1<i>$2</i>')
    .replace(/(^|[\s(])~([^~\n]+)~/g, '$1<s>$2</s>')
    .replace(/:skin-tone-[2-6]:/g, '')
    .replace(/:([a-z0-9_+-]{1,40}):/g, (m, name: string) => (knownEmoji(name) ? emoji(name) : m));
}

/** A text object: mrkdwn formatted, plain_text escaped (its `:emoji:` drawn, as `emoji: true` asks). */
export function textObject(value: unknown): string {
  if (typeof value !== 'object' || value === null) return '';
  const v = value as Record<string, unknown>;
  const raw = String(v.text ?? '');
  if (v.type === 'mrkdwn') return mrkdwn(raw);
  return escapeHtml(raw).replace(/:([a-z0-9_+-]{1,40}):/g, (m, name: string) =>
    knownEmoji(name) ? emoji(name) : m,
  );
}
