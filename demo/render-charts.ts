import { escapeHtml } from './render-text.js';

/** Slack's `data_visualization` block: lines as lines (SVG), areas filled, bars as bars, pies as shares. */

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const COLOURS = ['#1264a3', '#e8912d', '#2bac76', '#e01e5a', '#36c5f0', '#611f69'];
const W = 600;
const H = 180;

export function chart(block: Json): string {
  const c = isObject(block.chart) ? block.chart : {};
  const title = `<div class="chart-title">${escapeHtml(String(block.title ?? ''))}</div>`;
  if (c.type === 'pie' && Array.isArray(c.segments))
    return `<figure class="chart" data-kind="pie">${title}${pie(c.segments)}</figure>`;
  const series = (Array.isArray(c.series) ? c.series : []).filter(isObject).slice(0, 12);
  const categories = (
    isObject(c.axis_config) && Array.isArray(c.axis_config.categories) ? c.axis_config.categories : []
  ).slice(0, 100);
  const values = series.map((s) =>
    (Array.isArray(s.data) ? s.data : [])
      .slice(0, 100)
      .filter(isObject)
      .map((p) => (Number.isFinite(Number(p.value)) ? Number(p.value) : 0)),
  );
  const kind = c.type === 'line' || c.type === 'area' ? c.type : 'bar';
  const body = kind === 'bar' ? bars(series, categories, values) : lines(kind, series, categories, values);
  const legend = series
    .map(
      (s, i) =>
        `<span class="legend"><span class="swatch" style="background:${COLOURS[i % 6]}"></span>${escapeHtml(String(s.name ?? ''))}</span>`,
    )
    .join('');
  return `<figure class="chart" data-kind="${kind}">${title}${body}<div class="legends">${legend}</div></figure>`;
}

function pie(raw: unknown[]): string {
  const segments = raw.filter(isObject).slice(0, 20);
  const sum = segments.reduce((s, p) => s + Math.max(0, Number(p.value ?? 0) || 0), 0) || 1;
  return segments
    .map((p, i) => {
      const share = (100 * Math.max(0, Number(p.value ?? 0) || 0)) / sum;
      return `<div class="bar-row"><span class="bar-label">${escapeHtml(String(p.label ?? ''))}</span><span class="bar" style="width:${share.toFixed(1)}%;background:${COLOURS[i % 6]}"></span><span class="bar-value">${share.toFixed(0)}%</span></div>`;
    })
    .join('');
}

function bars(series: Json[], categories: unknown[], values: number[][]): string {
  const max = Math.max(1, ...values.flat());
  const groups = categories
    .map((category, i) => {
      const cols = values
        .map(
          (v, s) =>
            `<span class="col" style="height:${((100 * Math.max(0, v[i] ?? 0)) / max).toFixed(1)}%;background:${COLOURS[s % 6]}" title="${escapeHtml(`${String(series[s]?.name ?? '')}: ${v[i] ?? 0}`)}"></span>`,
        )
        .join('');
      return `<div class="group"><div class="cols">${cols}</div><div class="cat">${escapeHtml(String(category))}</div></div>`;
    })
    .join('');
  return `<div class="plot">${groups}</div>`;
}

/** One polyline per series over a shared y axis from 0 to the largest value, with the categories under it. */
function lines(kind: 'line' | 'area', series: Json[], categories: unknown[], values: number[][]): string {
  const max = Math.max(1, ...values.flat());
  const n = Math.max(categories.length, ...values.map((v) => v.length), 2);
  const x = (i: number) => ((i * W) / (n - 1)).toFixed(1);
  const y = (v: number) => (H - (Math.max(0, v) * (H - 8)) / max).toFixed(1);
  const paths = values
    .map((v, s) => {
      const points = v.map((value, i) => `${x(i)},${y(value)}`).join(' ');
      const colour = COLOURS[s % 6];
      const area =
        kind === 'area' && v.length > 1
          ? `<polygon points="0,${H} ${points} ${x(v.length - 1)},${H}" fill="${colour}" fill-opacity="0.15"></polygon>`
          : '';
      return `${area}<polyline class="series" points="${points}" fill="none" stroke="${colour}" stroke-width="2.5" stroke-linejoin="round"><title>${escapeHtml(String(series[s]?.name ?? ''))}</title></polyline>`;
    })
    .join('');
  const grid = [0.25, 0.5, 0.75]
    .map(
      (f) =>
        `<line x1="0" x2="${W}" y1="${(H * f).toFixed(0)}" y2="${(H * f).toFixed(0)}" stroke="#eee"></line>`,
    )
    .join('');
  const step = Math.max(1, Math.ceil(categories.length / 8));
  const labels = categories
    .map((c, i) =>
      i % step === 0
        ? `<span style="left:${((100 * i) / (n - 1)).toFixed(1)}%">${escapeHtml(String(c))}</span>`
        : '',
    )
    .join('');
  return `<div class="line-plot"><svg viewBox="0 0 ${W} ${H}" preserveAspectRatio="none" role="img" aria-label="line chart">${grid}${paths}</svg><div class="line-axis"><span class="y-max">${escapeHtml(max.toLocaleString('en'))}</span>${labels}</div></div>`;
}
