import { messageHtml } from '../../demo/message-html.js';
import { PAGE_STYLE } from '../../demo/page-style.js';
import { renderBlocks } from '../../demo/render-blocks.js';
import { escapeHtml, mrkdwn } from '../../demo/render-text.js';
import { BOT_USER, type DemoMessage, type StandInSlack } from '../../demo/stand-in-slack.js';
import { modalHtml } from '../../demo/surfaces-html.js';
import { withNewBlocks } from '../../src/slack/new-blocks.js';
import type { Kind } from './kinds.js';

/** The picture's width: a Slack message pane on a small laptop. */
export const WIDTH = 700;
const TS = '1763719200.000100';
const URL_PASTED = 'https://docs.acme.dev/guides/webhooks';

type Json = Record<string, unknown>;

/** What a builder gave, as something Slack draws: a message, a view, blocks, or bare text. */
function normalise(output: unknown): { text: string; blocks: unknown[]; view?: Json } {
  if (typeof output === 'string') return { text: output, blocks: [] };
  if (Array.isArray(output)) return { text: '', blocks: withNewBlocks(output as { type: string }[]) };
  const o = (output ?? {}) as Json;
  // What Slack shows where it takes the new blocks (a data table): their stand-ins left out.
  const blocks = Array.isArray(o.blocks) ? withNewBlocks(o.blocks as { type: string }[]) : [];
  if (o.type === 'modal' || o.type === 'home') return { text: '', blocks, view: o };
  return { text: typeof o.text === 'string' ? o.text : '', blocks };
}

/** A stand-in Slack with nothing in it: the renderers only read its messages and modal. */
function standIn(modal?: Json): StandInSlack {
  return { messages: [], modal, modalErrors: {}, find: () => undefined } as unknown as StandInSlack;
}

/** One kind drawn as the playground draws it, in `#shot` (the element the picture is cropped to). */
export function pageFor(kind: Kind, output: unknown): string {
  const { text, blocks, view } = normalise(output);
  let body: string;
  if (view?.type === 'modal') body = modalHtml(standIn(view));
  else if (view || kind.surface === 'home') body = `<div class="pane">${renderBlocks(blocks)}</div>`;
  else if (kind.surface === 'preview') {
    const pasted: DemoMessage = {
      ts: TS,
      channel: 'C0DOCS',
      user: 'U0DEMOALEX',
      text: URL_PASTED,
      reactions: [],
      unfurls: { [URL_PASTED]: blocks.length ? { blocks } : output },
    };
    body = messageHtml(standIn(), pasted, true);
  } else {
    const message: DemoMessage = {
      ts: TS,
      channel: 'C0DOCS',
      user: BOT_USER,
      text: blocks.length ? text : text || '(empty)',
      ...(blocks.length ? { blocks } : {}),
      reactions: [],
      ...(kind.surface === 'ephemeral' ? { ephemeral: true } : {}),
    };
    body = messageHtml(standIn(), message, true);
  }
  // The page's own style, laid out as one pane of the given width (no app chrome), the modal in place.
  const frame = `body{height:auto;display:block;width:${WIDTH}px}.modal-backdrop{position:static;background:none;display:block;padding:8px}.modal{width:auto;max-height:none;box-shadow:0 0 0 1px #ddd}.hover-menu{display:none!important}#shot{padding:8px 12px}`;
  return `<!doctype html><html><head><meta charset="utf-8"><style>${PAGE_STYLE}${frame}</style></head><body><div id="shot">${body}</div></body></html>`;
}

/** A kind with no picture on one side (the builder did not exist then): said in words. */
export function missingPage(reason: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><style>${PAGE_STYLE}body{height:auto;display:block;width:${WIDTH}px}#shot{padding:16px;color:#616061}</style></head><body><div id="shot">${mrkdwn(escapeHtml(reason))}</div></body></html>`;
}
