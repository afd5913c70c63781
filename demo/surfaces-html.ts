import { messageHtml } from './message-html.js';
import { renderBlocks } from './render-blocks.js';
import { escapeHtml, mrkdwn } from './render-text.js';
import { DEMO_DM, type StandInSlack } from './stand-in-slack.js';

/** The app's own surfaces: App Home (Home / Messages / About), the assistant split view, a modal, the API log. */

const ABOUT =
  'docs-agent brings your documentation platform into Slack. `/docs-agent <instruction>` (or an @mention, or a DM) starts a background agent job that edits the docs and opens a pull request; the job’s thread follows it to the pull-request link, and replies in that thread become follow-up instructions. `/docs-views` answers with a top-pages report that splits human and AI traffic, and channels can subscribe to a weekly report.';

export function homeHtml(slack: StandInSlack): string {
  const home = slack.home
    ? renderBlocks((slack.home.blocks as unknown[]) ?? [])
    : '<p class="empty">Opening App Home…</p>';
  const dm = slack.messages.filter((m) => m.channel === DEMO_DM && !m.thread_ts);
  const messages =
    dm.map((m) => messageHtml(slack, m, false)).join('') ||
    '<p class="empty">Your direct messages with docs-agent. A message here starts a job.</p>';
  const about = `<div class="about"><div class="about-head"><span class="avatar bot">📘</span><b>docs-agent</b></div><p>${mrkdwn(ABOUT)}</p><p class="hint">Commands: <code>/docs-agent</code>, <code>/docs-views</code>, <code>/docs-health</code> · Shortcut: Send to docs agent</p></div>`;
  const tab = (id: string, label: string) =>
    `<button type="button" class="home-tab" data-home-tab="${id}">${label}</button>`;
  return `<nav class="home-tabs">${tab('home', 'Home')}${tab('messages', 'Messages')}${tab('about', 'About')}</nav><div class="home-panel" data-home-panel="home" data-surface="home">${home}</div><div class="home-panel" data-home-panel="messages">${messages}</div><div class="home-panel" data-home-panel="about">${about}</div>`;
}

/** The AI app container beside the channel: the open thread's messages, status line and suggested prompts. */
export function assistantHtml(slack: StandInSlack): string {
  const threadTs = slack.assistantThread;
  if (!threadTs) return '';
  const thread = slack.assistant.thread(DEMO_DM, threadTs);
  const messages = slack.messages
    .filter((m) => m.channel === DEMO_DM && m.thread_ts === threadTs)
    .map((m) => messageHtml(slack, m, true))
    .join('');
  const status = thread.status ? `<div class="assistant-status">${escapeHtml(thread.status)}</div>` : '';
  const prompts = thread.prompts
    .map(
      (p) =>
        `<button type="button" class="prompt" data-prompt="${escapeHtml(p.message)}">${escapeHtml(p.title)}</button>`,
    )
    .join('');
  return `<section id="assistant" class="pane"><div class="assistant-head"><b>docs-agent</b><span class="assistant-title">${escapeHtml(thread.title || 'New chat')}</span><button type="button" class="btn" data-close-assistant>Close</button></div><div class="assistant-thread">${messages || '<p class="empty">Starting…</p>'}${status}</div>${prompts ? `<div class="prompts">${prompts}</div>` : ''}<form id="assistant-composer"><input name="text" placeholder="Ask docs-agent…" autocomplete="off"><button>Send</button></form></section>`;
}

/** A modal the bot opened (views.open / update / push), with the errors of a refused submission. */
export function modalHtml(slack: StandInSlack): string {
  if (!slack.modal) return '';
  const title = escapeHtml(String((slack.modal.title as { text?: string })?.text ?? ''));
  const submit = escapeHtml(String((slack.modal.submit as { text?: string })?.text ?? 'Submit'));
  const errors = Object.entries(slack.modalErrors)
    .map(
      ([block, error]) => `<div class="error" data-block="${escapeHtml(block)}">${escapeHtml(error)}</div>`,
    )
    .join('');
  return `<div class="modal-backdrop"><form class="modal" data-surface="modal"><div class="modal-title">${title}</div>${renderBlocks((slack.modal.blocks as unknown[]) ?? [])}${errors}<div class="modal-actions"><button type="button" class="btn" data-close>Cancel</button><button class="btn primary" type="submit">${submit}</button></div></form></div>`;
}

/** Every Web API call the bot made, oldest first with its time; collapsed until opened. */
export function callsHtml(slack: StandInSlack): string {
  const calls = slack.calls
    .slice(-100)
    .map(
      (c) =>
        `<li><time class="slack-date" data-epoch="${Math.floor(Date.parse(c.at) / 1000)}" data-format="{time_secs}">${escapeHtml(c.at.slice(11, 19))}</time> <code>${escapeHtml(c.method)}</code> <span>${escapeHtml(c.summary)}</span></li>`,
    )
    .join('');
  return `<details id="calls"><summary>Web API calls the bot made (${slack.calls.length})</summary><ol>${calls}</ol></details>`;
}
