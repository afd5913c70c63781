/** Block Kit to HTML, roughly as Slack draws it. Every piece of text is escaped before it is formatted. */

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The playground's people, as Slack shows a mention of them. */
const NAMES: Record<string, string> = { U0DEMOALEX: 'alex', U0DOCSBOT: 'Docs Agent' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Slack's mrkdwn on escaped text: links, mentions, *bold*, _italic_, ~strike~, `code`, ``` blocks, > quotes. */
export function mrkdwn(source: string): string {
  // Links and mentions first, on the raw text: `<url|label>`, `<@U…>`, `<#C…>`, `<!here>`.
  const parts = source.split(/(<[^<>\n]{1,500}>)/g);
  const html = parts
    .map((part) => {
      const token = /^<([^<>|]+)(?:\|([^<>]*))?>$/.exec(part);
      if (!token) return inline(escapeHtml(decodeEntities(part)));
      const [, target = '', label] = token;
      if (target.startsWith('@'))
        return `<span class="mention">@${escapeHtml(label ?? NAMES[target.slice(1)] ?? target.slice(1))}</span>`;
      if (target.startsWith('#')) return `<span class="mention">#${escapeHtml(label ?? 'channel')}</span>`;
      // `<!date^…|fallback>` shows its fallback text; `<!here>` and the like read as mentions.
      if (target.startsWith('!date')) return escapeHtml(decodeEntities(label ?? ''));
      if (target.startsWith('!'))
        return `<span class="mention">@${escapeHtml(target.slice(1).split('^')[0] ?? '')}</span>`;
      const href = decodeEntities(target);
      const safe = /^(https?:|mailto:)/i.test(href) ? href : '#';
      return `<a href="${escapeHtml(safe)}" target="_blank" rel="noopener">${inline(escapeHtml(decodeEntities(label ?? target)))}</a>`;
    })
    .join('');
  return html
    .replace(/```([\s\S]*?)```/g, (_m, code: string) => `<pre>${code}</pre>`)
    .split('\n')
    .map((line) => (line.startsWith('&#62; ') ? `<blockquote>${line.slice(6)}</blockquote>` : line))
    .join('<br>');
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
    .replace(/:([a-z0-9_+-]{1,40}):/g, (m, name: string) => EMOJI[name] ?? m);
}

const EMOJI: Record<string, string> = {
  white_check_mark: '✅',
  x: '❌',
  warning: '⚠️',
  hourglass_flowing_sand: '⏳',
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
  gear: '⚙️',
  bell: '🔔',
  no_bell: '🔕',
  heavy_check_mark: '✔️',
  arrows_counterclockwise: '🔄',
  speech_balloon: '💬',
  thumbsdown: '👎',
  thumbsup: '👍',
};

export const emoji = (name: string) => EMOJI[name] ?? `:${escapeHtml(name)}:`;

function text(value: unknown): string {
  if (!isObject(value)) return '';
  const raw = String(value.text ?? '');
  return value.type === 'mrkdwn' ? mrkdwn(raw) : escapeHtml(raw);
}

/** An interactive element: its action id, block id and value ride on data attributes the page script reads. */
function element(el: unknown, blockId: string): string {
  if (!isObject(el)) return '';
  const data = `data-block="${escapeHtml(blockId)}" data-action="${escapeHtml(String(el.action_id ?? ''))}"`;
  if (el.type === 'button') {
    if (typeof el.url === 'string' && /^https?:/i.test(el.url))
      return `<a class="btn" href="${escapeHtml(el.url)}" target="_blank" rel="noopener">${text(el.text)}</a>`;
    const style = el.style === 'primary' || el.style === 'danger' ? ` ${el.style}` : '';
    return `<button class="btn${style}" ${data} data-type="button" data-value="${escapeHtml(String(el.value ?? ''))}">${text(el.text)}</button>`;
  }
  if (el.type === 'static_select' || el.type === 'overflow') {
    const options = Array.isArray(el.options)
      ? el.options
      : Array.isArray(el.option_groups)
        ? el.option_groups.flatMap((g) => (isObject(g) && Array.isArray(g.options) ? g.options : []))
        : [];
    const label = el.type === 'overflow' ? '⋯' : text(el.placeholder) || 'Choose…';
    const opts = options
      .filter(isObject)
      .map((o) => `<option value="${escapeHtml(String(o.value ?? ''))}">${text(o.text)}</option>`)
      .join('');
    return `<select class="select" ${data} data-type="${escapeHtml(String(el.type))}"><option value="">${label}</option>${opts}</select>`;
  }
  if (el.type === 'image') return `<img class="thumb" alt="${escapeHtml(String(el.alt_text ?? ''))}">`;
  return `<span class="unsupported">[${escapeHtml(String(el.type ?? '?'))}]</span>`;
}

/** An input of a modal: the page reads `name` (block id) and `data-action` on submit. */
function input(block: Json): string {
  const el = isObject(block.element) ? block.element : {};
  const blockId = escapeHtml(String(block.block_id ?? ''));
  const action = escapeHtml(String(el.action_id ?? ''));
  const label = `<label class="input-label">${text(block.label)}</label>`;
  const initial = escapeHtml(String(el.initial_value ?? ''));
  if (el.type === 'plain_text_input') {
    const field = el.multiline
      ? `<textarea name="${blockId}" data-action="${action}" data-kind="text">${initial}</textarea>`
      : `<input name="${blockId}" data-action="${action}" data-kind="text" value="${initial}">`;
    return `<div class="input">${label}${field}${block.hint ? `<div class="hint">${text(block.hint)}</div>` : ''}</div>`;
  }
  if (el.type === 'static_select' || el.type === 'radio_buttons' || el.type === 'checkboxes') {
    const options = (Array.isArray(el.options) ? el.options : []).filter(isObject);
    const initialValue = isObject(el.initial_option) ? String(el.initial_option.value ?? '') : '';
    const opts = options
      .map((o) => {
        const value = String(o.value ?? '');
        const selected = value === initialValue ? ' selected' : '';
        return `<option value="${escapeHtml(value)}"${selected}>${text(o.text)}</option>`;
      })
      .join('');
    return `<div class="input">${label}<select name="${blockId}" data-action="${action}" data-kind="${escapeHtml(String(el.type))}">${opts}</select></div>`;
  }
  if (el.type === 'conversations_select' || el.type === 'channels_select')
    return `<div class="input">${label}<select name="${blockId}" data-action="${action}" data-kind="${escapeHtml(el.type)}"><option value="C0DEMODOCS"># docs</option></select></div>`;
  return `<div class="input">${label}<span class="unsupported">[${escapeHtml(String(el.type ?? '?'))}]</span></div>`;
}

/** A `data_visualization` block as a simple bar chart (each series a colour; pies as shares). */
function chart(block: Json): string {
  const c = isObject(block.chart) ? block.chart : {};
  const title = `<div class="chart-title">${escapeHtml(String(block.title ?? ''))}</div>`;
  if (c.type === 'pie' && Array.isArray(c.segments)) {
    const segments = c.segments.filter(isObject);
    const sum = segments.reduce((s, p) => s + Number(p.value ?? 0), 0) || 1;
    const rows = segments
      .map((p, i) => {
        const share = (100 * Number(p.value ?? 0)) / sum;
        return `<div class="bar-row"><span class="bar-label">${escapeHtml(String(p.label ?? ''))}</span><span class="bar s${i % 6}" style="width:${share.toFixed(1)}%"></span><span class="bar-value">${share.toFixed(0)}%</span></div>`;
      })
      .join('');
    return `<figure class="chart" data-kind="pie">${title}${rows}</figure>`;
  }
  const series = (Array.isArray(c.series) ? c.series : []).filter(isObject);
  const categories =
    isObject(c.axis_config) && Array.isArray(c.axis_config.categories) ? c.axis_config.categories : [];
  const values = series.map((s) =>
    Array.isArray(s.data) ? s.data.filter(isObject).map((p) => Number(p.value ?? 0)) : [],
  );
  const max = Math.max(1, ...values.flat());
  const groups = categories
    .map((category, i) => {
      const bars = values
        .map(
          (v, s) =>
            `<span class="col s${s % 6}" style="height:${((100 * (v[i] ?? 0)) / max).toFixed(1)}%" title="${escapeHtml(`${String(series[s]?.name ?? '')}: ${v[i] ?? 0}`)}"></span>`,
        )
        .join('');
      return `<div class="group"><div class="cols">${bars}</div><div class="cat">${escapeHtml(String(category))}</div></div>`;
    })
    .join('');
  const legend = series
    .map(
      (s, i) =>
        `<span class="legend"><span class="swatch s${i % 6}"></span>${escapeHtml(String(s.name ?? ''))}</span>`,
    )
    .join('');
  return `<figure class="chart" data-kind="${escapeHtml(String(c.type ?? 'bar'))}">${title}<div class="plot">${groups}</div><div class="legends">${legend}</div></figure>`;
}

export function renderBlocks(blocks: unknown[]): string {
  return blocks
    .filter(isObject)
    .map((block) => {
      const blockId = String(block.block_id ?? '');
      switch (block.type) {
        case 'header':
          return `<div class="b-header">${text(block.text)}</div>`;
        case 'divider':
          return '<hr class="b-divider">';
        case 'section': {
          const fields = Array.isArray(block.fields)
            ? `<div class="fields">${block.fields.map((f) => `<div>${text(f)}</div>`).join('')}</div>`
            : '';
          const accessory = block.accessory
            ? `<div class="accessory">${element(block.accessory, blockId)}</div>`
            : '';
          return `<div class="b-section"><div class="section-text">${text(block.text)}${fields}</div>${accessory}</div>`;
        }
        case 'context':
          return `<div class="b-context">${(Array.isArray(block.elements) ? block.elements : []).map((e) => (isObject(e) && e.type === 'image' ? '' : `<span>${text(e)}</span>`)).join(' ')}</div>`;
        case 'actions':
          return `<div class="b-actions">${(Array.isArray(block.elements) ? block.elements : []).map((e) => element(e, blockId)).join('')}</div>`;
        case 'input':
          return input(block);
        case 'data_visualization':
          return chart(block);
        case 'rich_text':
          return richText(block);
        case 'context_actions':
          return `<div class="b-actions">${(Array.isArray(block.elements) ? block.elements : []).map((e) => contextAction(e, blockId)).join('')}</div>`;
        default:
          return `<div class="unsupported">[${escapeHtml(String(block.type ?? '?'))} block]</div>`;
      }
    })
    .join('');
}

/** Rich text: its sections, quotes and lists as plain escaped text with Slack's styling. */
function richText(block: Json): string {
  const parts = (Array.isArray(block.elements) ? block.elements : []).filter(isObject);
  return parts
    .map((part) => {
      const inner = (Array.isArray(part.elements) ? part.elements : [])
        .filter(isObject)
        .map((e) =>
          escapeHtml(
            String(e.text ?? e.url ?? (e.type === 'user' ? `@${NAMES[String(e.user_id)] ?? e.user_id}` : '')),
          ),
        )
        .join('');
      if (part.type === 'rich_text_quote') return `<blockquote>${inner}</blockquote>`;
      if (part.type === 'rich_text_preformatted') return `<pre>${inner}</pre>`;
      return `<div>${inner}</div>`;
    })
    .join('');
}

/** Feedback buttons and icon buttons under a message (`context_actions`). */
function contextAction(el: unknown, blockId: string): string {
  if (!isObject(el)) return '';
  if (el.type === 'feedback_buttons') {
    const button = (b: unknown, label: string) =>
      isObject(b)
        ? element(
            {
              type: 'button',
              action_id: el.action_id,
              value: b.value,
              text: { type: 'plain_text', text: label },
            },
            blockId,
          )
        : '';
    return `${button(el.positive_button, '👍')}${button(el.negative_button, '👎')}`;
  }
  if (el.type === 'icon_button') return element({ ...el, type: 'button' }, blockId);
  return element(el, blockId);
}
