import { chart } from './render-charts.js';
import { emoji, escapeHtml, link, mrkdwn, NAMES, textObject } from './render-text.js';

/** Block Kit to HTML, as Slack draws it. Every piece of text is escaped before it is formatted. */

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export { emoji, escapeHtml, mrkdwn } from './render-text.js';

const text = textObject;

/** An interactive element: its action id, block id and value ride on data attributes the page script reads. */
function element(el: unknown, blockId: string): string {
  if (!isObject(el)) return '';
  const data = `data-block="${escapeHtml(blockId)}" data-action="${escapeHtml(String(el.action_id ?? ''))}"`;
  if (el.type === 'button') {
    if (typeof el.url === 'string' && /^https?:/i.test(el.url))
      return `<a class="btn${el.style === 'primary' ? ' primary' : ''}" href="${escapeHtml(el.url)}" target="_blank" rel="noopener">${text(el.text)}</a>`;
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
  if (el.type === 'timepicker') {
    const time = escapeHtml(String(el.initial_time ?? ''));
    const hint = block.hint ? `<div class="hint">${text(block.hint)}</div>` : '';
    return `<div class="input">${label}<input type="time" name="${blockId}" data-action="${action}" data-kind="timepicker" value="${time}">${hint}</div>`;
  }
  // Slack's people picker, drawn as the ids it holds (comma-separated) in the playground.
  if (el.type === 'multi_users_select') {
    const users = escapeHtml((Array.isArray(el.initial_users) ? el.initial_users : []).join(', '));
    return `<div class="input">${label}<input name="${blockId}" data-action="${action}" data-kind="multi_users_select" value="${users}"></div>`;
  }
  if (el.type === 'checkboxes') {
    const option = (Array.isArray(el.options) ? el.options : []).find(isObject) ?? {};
    const on = Array.isArray(el.initial_options) && el.initial_options.length > 0 ? ' selected' : '';
    const value = escapeHtml(String(option.value ?? ''));
    const yes = `<option value="${value}"${on}>Yes: ${text(option.text)}</option>`;
    return `<div class="input">${label}<select name="${blockId}" data-action="${action}" data-kind="checkboxes"><option value="">No</option>${yes}</select></div>`;
  }
  if (el.type === 'static_select' || el.type === 'radio_buttons') {
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
          return `<div class="b-context">${(Array.isArray(block.elements) ? block.elements : []).map((e) => (isObject(e) && e.type === 'image' ? '<span class="ctx-img"></span>' : `<span>${text(e)}</span>`)).join(' ')}</div>`;
        case 'markdown':
          return `<div class="b-section"><div class="section-text">${mrkdwn(String(block.text ?? ''))}</div></div>`;
        case 'image':
          return `<div class="b-image">[image: ${escapeHtml(String(block.alt_text ?? ''))}]</div>`;
        case 'actions':
          return `<div class="b-actions">${(Array.isArray(block.elements) ? block.elements : []).map((e) => element(e, blockId)).join('')}</div>`;
        case 'input':
          return input(block);
        case 'data_visualization':
          return chart(block);
        case 'rich_text':
          return richText(block);
        case 'data_table':
          return dataTable(block);
        case 'context_actions':
          return `<div class="b-actions">${(Array.isArray(block.elements) ? block.elements : []).map((e) => contextAction(e, blockId)).join('')}</div>`;
        default:
          return `<div class="unsupported">[${escapeHtml(String(block.type ?? '?'))} block]</div>`;
      }
    })
    .join('');
}

/** A `data_table`: its caption, header row and first page of rows (numbers right-aligned), and a pager. */
function dataTable(block: Json): string {
  const rows = (Array.isArray(block.rows) ? block.rows : []).filter(Array.isArray) as unknown[][];
  const [header = [], ...body] = rows;
  const pageSize = Math.max(1, Number(block.page_size) || 5);
  const cell = (c: unknown, tag: 'th' | 'td') => {
    if (!isObject(c)) return `<${tag}></${tag}>`;
    if (c.type === 'rich_text') return `<${tag}>${richText(c)}</${tag}>`;
    const num = c.type === 'raw_number' ? ' class="num"' : '';
    return `<${tag}${num}>${escapeHtml(String(c.text ?? c.value ?? ''))}</${tag}>`;
  };
  const head = `<tr>${header.map((c) => cell(c, 'th')).join('')}</tr>`;
  const shown = body.slice(0, pageSize).map((r) => `<tr>${r.map((c) => cell(c, 'td')).join('')}</tr>`);
  const pager =
    body.length > pageSize ? `<div class="table-pager">1–${pageSize} of ${body.length} · ‹ ›</div>` : '';
  return `<table class="b-table"><caption>${escapeHtml(String(block.caption ?? ''))}</caption>${head}${shown.join('')}</table>${pager}`;
}

/** Rich text: sections, quotes, lists and code, with their styles, links, mentions, emoji and dates. */
function richText(block: Json): string {
  const parts = (Array.isArray(block.elements) ? block.elements : []).filter(isObject);
  return parts.map(richPart).join('');
}

function richPart(part: Json): string {
  if (part.type === 'rich_text_list') {
    const tag = part.style === 'ordered' ? 'ol' : 'ul';
    const items = (Array.isArray(part.elements) ? part.elements : []).filter(isObject);
    return `<${tag} class="rt-list">${items.map((item) => `<li>${richInline(item)}</li>`).join('')}</${tag}>`;
  }
  const inner = richInline(part);
  if (part.type === 'rich_text_quote') return `<blockquote>${inner}</blockquote>`;
  if (part.type === 'rich_text_preformatted') return `<pre>${inner}</pre>`;
  return `<div class="rt-section">${inner}</div>`;
}

function richInline(part: Json): string {
  return (Array.isArray(part.elements) ? part.elements : [])
    .filter(isObject)
    .map((e) => {
      let html: string;
      if (e.type === 'emoji') html = emoji(String(e.name ?? ''));
      else if (e.type === 'user')
        html = `<span class="mention">@${escapeHtml(NAMES[String(e.user_id)] ?? String(e.user_id ?? ''))}</span>`;
      else if (e.type === 'channel') html = '<span class="mention">#docs</span>';
      else if (e.type === 'link') html = link(String(e.url ?? ''), escapeHtml(String(e.text ?? e.url ?? '')));
      else if (e.type === 'date')
        html = mrkdwn(
          `<!date^${Number(e.timestamp) || 0}^${String(e.format ?? '{date_short}')}|${String(e.fallback ?? '')}>`,
        );
      else html = escapeHtml(String(e.text ?? '')).replace(/\n/g, '<br>');
      const style = isObject(e.style) ? e.style : {};
      if (style.code) html = `<code>${html}</code>`;
      if (style.bold) html = `<b>${html}</b>`;
      if (style.italic) html = `<i>${html}</i>`;
      if (style.strike) html = `<s>${html}</s>`;
      return html;
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
