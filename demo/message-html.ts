import { renderBlocks } from './render-blocks.js';
import { emoji, escapeHtml, mrkdwn } from './render-text.js';
import { BOT_USER, type DemoMessage, type StandInSlack } from './stand-in-slack.js';

/** One message as Slack draws it: author, time, blocks, link previews, reactions, hover menu and thread. */

const epochOf = (ts: string) => Number(ts.split('.')[0]) || 0;

/** A time the page script shows in the viewer's zone (`data-epoch`); UTC until it runs. */
export function timeHtml(epochSeconds: number, format = '{time}'): string {
  const fallback = `${new Date(epochSeconds * 1000).toISOString().slice(11, 16)} UTC`;
  return `<time class="slack-date" data-epoch="${epochSeconds}" data-format="${escapeHtml(format)}">${fallback}</time>`;
}

const STEP_ICONS: Record<string, string> = { complete: '✅', in_progress: '⏳', pending: '⬜', error: '⚠️' };

/** A streamed message: its steps as a plan (status icon each) and its text; the final blocks once stopped. */
function streamHtml(m: DemoMessage): string {
  const stream = m.stream;
  if (!stream) return '';
  const steps = stream.steps
    .map(
      (s) =>
        `<li class="step step-${escapeHtml(s.status)}"><span class="step-icon">${STEP_ICONS[s.status] ?? '•'}</span> ${escapeHtml(s.title)}${s.details ? `<div class="step-details">${mrkdwn(s.details)}</div>` : ''}${s.output ? `<div class="step-details">${mrkdwn(s.output)}</div>` : ''}</li>`,
    )
    .join('');
  const text = stream.text
    ? `<div class="b-section"><div class="section-text">${mrkdwn(stream.text)}</div></div>`
    : '';
  const live = stream.state === 'streaming' ? '<span class="streaming">…</span>' : '';
  return `${steps ? `<ol class="steps">${steps}</ol>` : ''}${text}${live}`;
}

/** The menu a message shows on hover: the job reaction, the app's shortcut, and its Block Kit JSON. */
function hoverMenu(m: DemoMessage): string {
  if (m.ephemeral) return '';
  return `<div class="hover-menu" role="toolbar"><button type="button" class="hm" data-react="memo" title="React with :memo: (starts a job from this message)">${emoji('memo')}</button><button type="button" class="hm" data-shortcut title="More actions">⋮</button><div class="shortcut-menu"><button type="button" data-shortcut-run>Send to docs-agent</button></div>${m.blocks?.length ? '<button type="button" class="hm" data-copy-json title="Copy Block Kit JSON">{ }</button>' : ''}</div>`;
}

/** A person's bare URLs as Slack delivers them, `<url>` (so they draw as links). */
const linked = (text: string) => text.replace(/(^|\s)(https?:\/\/[^\s<>|]{1,500})/g, '$1<$2>');

export function messageHtml(slack: StandInSlack, m: DemoMessage, inThread: boolean): string {
  const bot = m.user === BOT_USER;
  const author = bot ? 'docs-agent' : 'Alex Rivera';
  const badge = bot ? '<span class="app">APP</span>' : '';
  const only = m.ephemeral ? '<div class="only-you">Only visible to you</div>' : '';
  const body = m.stream
    ? `${streamHtml(m)}${m.blocks?.length ? renderBlocks(m.blocks) : ''}`
    : m.blocks?.length
      ? renderBlocks(m.blocks)
      : `<div class="b-section"><div class="section-text">${mrkdwn(bot ? m.text : linked(m.text))}</div></div>`;
  const reactions = m.reactions
    .map((r) => `<span class="reaction" data-reaction="${escapeHtml(r)}">${emoji(r)} 1</span>`)
    .join('');
  const unfurls = Object.entries(m.unfurls ?? {})
    .map(([url, u]) => {
      const blocks = (u as { blocks?: unknown[] }).blocks;
      return `<div class="unfurl" data-url="${escapeHtml(url)}">${blocks ? renderBlocks(blocks) : ''}</div>`;
    })
    .join('');
  const replies = inThread ? [] : slack.messages.filter((r) => r.thread_ts === m.ts && r.ts !== m.ts);
  const thread =
    inThread || m.ephemeral
      ? ''
      : `<details class="thread" data-thread="${escapeHtml(m.ts)}"${replies.length ? ' open' : ''}><summary${replies.length ? '' : ' class="no-replies"'}>${replies.length ? `${replies.length} ${replies.length === 1 ? 'reply' : 'replies'}` : 'Reply'}</summary>${replies.map((r) => messageHtml(slack, r, true)).join('')}<form class="reply" data-thread="${escapeHtml(m.ts)}"><input name="text" placeholder="Reply in thread…" autocomplete="off"><button>Send</button></form></details>`;
  return `<div class="msg${m.ephemeral ? ' ephemeral' : ''}" data-ts="${escapeHtml(m.ts)}">${hoverMenu(m)}<div class="avatar${bot ? ' bot' : ''}">${bot ? '📘' : 'A'}</div><div class="content"><div class="author">${author} ${badge} <span class="msg-time">${timeHtml(epochOf(m.ts))}</span></div>${only}<div class="blocks">${body}</div>${unfurls}${reactions ? `<div class="reactions">${reactions}</div>` : ''}${thread}</div></div>`;
}

/** A message's Block Kit as the bot sent it (the "Copy Block Kit JSON" menu item). */
export function messageJson(slack: StandInSlack, ts: string): string | undefined {
  const m = slack.find(ts);
  if (!m) return undefined;
  return JSON.stringify({ text: m.text, blocks: m.blocks ?? [] }, null, 2);
}
