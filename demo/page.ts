import { messageHtml } from './message-html.js';
import { PAGE_SCRIPT } from './page-script.js';
import { PAGE_STYLE } from './page-style.js';
import { DEMO_CHANNEL, type StandInSlack } from './stand-in-slack.js';
import { assistantHtml, callsHtml, homeHtml, modalHtml } from './surfaces-html.js';

export { messageJson } from './message-html.js';

/** The scenario bar: each button does, through the real bot, what a person would wait days for. */
const SCENARIO_BAR = [
  ['job-fails', 'Job fails'],
  ['alert-fires', 'Alert fires'],
  ['weekly-post', 'Weekly post'],
  ['paste-link', 'Paste a docs link'],
  ['open-assistant', 'Open assistant'],
  ['reset', 'Reset'],
]
  .map(([name, label]) => `<button type="button" class="scenario" data-scenario="${name}">${label}</button>`)
  .join('');

/** The live part of the page: #docs (with the assistant beside it when open), App Home, a modal, the API log. */
export function fragment(slack: StandInSlack): string {
  const top = slack.messages.filter(
    (m) => m.channel === DEMO_CHANNEL && (!m.thread_ts || m.thread_ts === m.ts),
  );
  const channel =
    top.map((m) => messageHtml(slack, m, false)).join('') ||
    '<p class="empty">Setting up #docs: the bot is starting its first jobs…</p>';
  return `<section id="channel" class="pane">${channel}</section>${assistantHtml(slack)}<section id="home" class="pane">${homeHtml(slack)}</section>${modalHtml(slack)}${callsHtml(slack)}`;
}

export function pageHtml(slack: StandInSlack): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>docs-agent playground</title><meta name="viewport" content="width=device-width"><style>${PAGE_STYLE}</style></head><body><header><b>Acme</b> · <button class="tab active" data-tab="channel"># docs</button><button class="tab" data-tab="home">docs-agent · App</button><span class="note">Playground: the real bot, a stand-in Slack and docs platform, no account needed</span></header><nav id="scenarios"><span class="bar-label">Try:</span>${SCENARIO_BAR}<span id="scenario-state" aria-live="polite"></span></nav><main id="live" class="show-channel">${fragment(slack)}</main><form id="composer"><input name="text" placeholder="Message #docs — try /docs-agent Fix the typo on the quickstart page, /docs-views or /docs-health" autocomplete="off"><button>Send</button></form><script>${PAGE_SCRIPT}</script></body></html>`;
}
