import type { Button, ContextBlock, KnownBlock, Overflow, SectionBlock } from '@slack/types';
import type { ScheduleKind } from '../../insights/ports.js';
import { slackTime } from './dates.js';
import { blockTextLength, LIMITS, TOTAL_BLOCK_TEXT } from './limits.js';
import type { MessageBlock } from './types.js';
import { weeklyStopButton } from './weekly-post.js';

/*
 * What people did on a shared message (an alert, a posted report, a weekly post), shown on the message
 * itself for everyone: who and when, as Slack date tokens. Each edit works on the message's blocks by
 * structure (a block by its id, a button by its action id) and only adds our own words: readers' text in
 * the blocks is never read or rewritten. Each line has a block id of its own, so doing it again replaces it.
 */

/** Undo under a stopped weekly post: restarts the channel's posts of that kind (its value). */
export const WEEKLY_UNDO_ACTION = 'weekly_undo_stop';
/** The block of a weekly post's Stop button, and of what replaces it. */
export const WEEKLY_STOP_BLOCK = 'weekly_post_stop';

const when = (atMs: number) => slackTime(atMs);
const line = (blockId: string, text: string): ContextBlock => ({
  type: 'context',
  block_id: blockId,
  elements: [{ type: 'mrkdwn', text }],
});

/** Within Slack's limits (blocks, total text), else undefined: the message is then left as it is. */
function fits(blocks: MessageBlock[]): MessageBlock[] | undefined {
  return blocks.length <= LIMITS.blocks && blockTextLength(blocks) <= TOTAL_BLOCK_TEXT ? blocks : undefined;
}

/** `blocks` with `added` right after block `i`, or replacing the line of the same block id. */
function withLine(blocks: MessageBlock[], i: number, added: ContextBlock): MessageBlock[] {
  const kept = blocks.filter((b) => b.block_id !== added.block_id);
  const at = kept.indexOf(blocks[i]!);
  return [...kept.slice(0, at + 1), added, ...kept.slice(at + 1)];
}

const isButton = (element: unknown, actionId: string): element is Button =>
  typeof element === 'object' &&
  element !== null &&
  (element as Button).type === 'button' &&
  (element as Button).action_id === actionId;

/** The row's Fix button, relabelled: clicked while the job runs, it names the job's thread privately. */
function fixing(button: Button): Button {
  const { style: _style, ...rest } = button;
  return { ...rest, text: { type: 'plain_text', text: 'Fixing…' } };
}

export interface FixStarted {
  userId: string;
  atMs: number;
  /** The job's card, in its thread. */
  link: string;
}

/**
 * A Fix started from row `actionId`: its button reads "Fixing…" and a line under the row says who started
 * it, when, and where the job is. Undefined when the row is not in the message.
 */
export function fixStartedOn(
  blocks: readonly MessageBlock[],
  actionId: string,
  fix: FixStarted,
): MessageBlock[] | undefined {
  const text = `🛠 Fixing · started by <@${fix.userId}> ${when(fix.atMs)} · <${fix.link}|its thread>`;
  const added = line(`shared_fix_${actionId}`, text);
  const next = [...blocks];
  for (const [i, block] of blocks.entries()) {
    if (block.type === 'section' && isButton(block.accessory, actionId)) {
      const row: SectionBlock = { ...block, accessory: fixing(block.accessory) };
      next[i] = row;
      if (next.length < LIMITS.blocks || next.some((b) => b.block_id === added.block_id))
        return fits(withLine(next, i, added));
      // No room for a line of its own (a report of 39 rows): the words go in the row's fields.
      next[i] = { ...row, fields: [{ type: 'mrkdwn', text }] };
      return fits(next);
    }
    if (block.type === 'actions' && block.elements.some((e) => isButton(e, actionId))) {
      next[i] = { ...block, elements: block.elements.map((e) => (isButton(e, actionId) ? fixing(e) : e)) };
      return fits(withLine(next, i, added));
    }
  }
  return undefined;
}

/** The row's Fix button (its label and style, put back when the job ends), if the row is in the message. */
export function fixButtonOf(blocks: readonly MessageBlock[], actionId: string): Button | undefined {
  for (const block of blocks) {
    if (block.type === 'section' && isButton(block.accessory, actionId)) return block.accessory;
    if (block.type === 'actions') {
      const found = block.elements.find((e) => isButton(e, actionId));
      if (found) return found as Button;
    }
  }
  return undefined;
}

/**
 * The job of row `actionId` ended (no longer followed): its button is Fix again, as it was, and its line says
 * whose fix ended and when. Undefined when the row shows another job's line (a later fix) or is Fix already.
 */
export function fixEndedOn(
  blocks: readonly MessageBlock[],
  actionId: string,
  end: { userId: string; atMs: number; link: string; button: Pick<Button, 'text' | 'style'> },
): MessageBlock[] | undefined {
  // The link is this job's alone: gone once a later fix of the row replaced its line.
  const current = fixButtonOf(blocks, actionId);
  if (current?.text.text !== 'Fixing…' || !JSON.stringify(blocks).includes(end.link)) return undefined;
  const restored: Button = {
    ...current,
    text: end.button.text,
    ...(end.button.style ? { style: end.button.style } : {}),
  };
  const text = `🛠 <@${end.userId}>'s fix ended ${when(end.atMs)} · <${end.link}|its thread>`;
  const swap = (e: unknown) => (isButton(e, actionId) ? restored : e);
  return fits(
    blocks.map((b): MessageBlock => {
      if (b.block_id === `shared_fix_${actionId}`) return line(`shared_fix_${actionId}`, text);
      if (b.type === 'section' && isButton(b.accessory, actionId))
        return b.fields
          ? { ...b, accessory: restored, fields: [{ type: 'mrkdwn', text }] }
          : { ...b, accessory: restored };
      if (b.type === 'actions') return { ...b, elements: b.elements.map(swap) as typeof b.elements };
      return b;
    }),
  );
}

/** A muted alert: its mute menu goes, and a line says who muted it and until when. */
export function mutedOn(
  blocks: readonly MessageBlock[],
  mute: { userId: string; untilMs: number; menuActionId: string },
): MessageBlock[] | undefined {
  const i = blocks.findIndex(
    (b) =>
      b.type === 'actions' && b.elements.some((e) => 'action_id' in e && e.action_id === mute.menuActionId),
  );
  const block = blocks[i];
  if (block?.type !== 'actions') return undefined;
  const elements = block.elements.filter((e) => !('action_id' in e && e.action_id === mute.menuActionId));
  const text = `🔕 Muted by <@${mute.userId}> until ${when(mute.untilMs)}`;
  const next: MessageBlock[] = [...blocks];
  if (elements.length > 0) next[i] = { ...block, elements };
  else next[i] = line(MUTED_BLOCK, text);
  return fits(elements.length > 0 ? withLine(next, i, line(MUTED_BLOCK, text)) : next);
}

const MUTED_BLOCK = 'shared_muted';

/**
 * The mute that ends at `untilMs` ended: its line goes and the mute menu is back (in the buttons' row above
 * the line, else in a row of its own). Undefined when the line is gone or names another end (a later mute).
 */
export function unmutedOn(
  blocks: readonly MessageBlock[],
  end: { untilMs: number; menu: Overflow },
): MessageBlock[] | undefined {
  const i = blocks.findIndex((b) => b.block_id === MUTED_BLOCK);
  const shown = blocks[i];
  if (shown?.type !== 'context' || !JSON.stringify(shown.elements).includes(when(end.untilMs)))
    return undefined;
  const hasMenu = (b: MessageBlock) =>
    b.type === 'actions' && b.elements.some((e) => 'action_id' in e && e.action_id === end.menu.action_id);
  if (blocks.some(hasMenu)) return fits(blocks.filter((_, j) => j !== i));
  // The buttons' row: the nearest above the line (an "I'll look" line may sit between them).
  let row = i - 1;
  while (row >= 0 && blocks[row]?.type === 'context') row -= 1;
  const above = blocks[row];
  if (above?.type === 'actions' && above.elements.length < 25) {
    const withMenu = { ...above, elements: [...above.elements, end.menu] };
    return fits(blocks.flatMap((b, j) => (j === i ? [] : j === row ? [withMenu] : [b])));
  }
  return fits(blocks.map((b, j) => (j === i ? { type: 'actions', elements: [end.menu] } : b)));
}

/** "I'll look" under a docs-health alert: whoever clicks it is named on the alert as looking. */
export const ALERT_LOOK_ACTION = 'health_alert_look';
const LOOKING_BLOCK = 'shared_looking';
/** Slack's most elements in a context block: one person looking each. */
const MAX_LOOKING = 10;

/**
 * Someone is looking at the alert: "👀 <@U…> is looking · <date>" in one line under its buttons, one
 * element per person. Undefined (nothing changes) when that person is named already, when the line is full,
 * or when the alert has no "I'll look" button.
 */
export function lookingOn(
  blocks: readonly MessageBlock[],
  look: { userId: string; atMs: number },
): MessageBlock[] | undefined {
  const element = { type: 'mrkdwn' as const, text: `👀 <@${look.userId}> is looking · ${when(look.atMs)}` };
  const i = blocks.findIndex((b) => b.block_id === LOOKING_BLOCK);
  const shown = blocks[i];
  if (shown?.type === 'context') {
    // Our own line: its elements are the mentions we wrote.
    const named = shown.elements.some((e) => 'text' in e && e.text.includes(`<@${look.userId}>`));
    if (named || shown.elements.length >= MAX_LOOKING) return undefined;
    return fits(blocks.map((b, j) => (j === i ? { ...shown, elements: [...shown.elements, element] } : b)));
  }
  const at = blocks.findIndex(
    (b) => b.type === 'actions' && b.elements.some((e) => isButton(e, ALERT_LOOK_ACTION)),
  );
  if (at < 0) return undefined;
  return fits(withLine([...blocks], at, { type: 'context', block_id: LOOKING_BLOCK, elements: [element] }));
}

/** The weekly post's Stop button (or what replaced it) gives way to `section`; undefined when absent. */
function replaceStop(blocks: readonly MessageBlock[], section: SectionBlock): MessageBlock[] | undefined {
  const i = blocks.findIndex((b) => b.block_id === WEEKLY_STOP_BLOCK);
  if (i < 0) return undefined;
  return fits(blocks.map((b, j) => (j === i ? section : b)));
}

/** Stopped from the post: who and when, and Undo (which restarts them). */
export function stoppedOn(
  blocks: readonly MessageBlock[],
  stop: { userId: string; atMs: number; kind: string },
): MessageBlock[] | undefined {
  return replaceStop(blocks, {
    type: 'section',
    block_id: WEEKLY_STOP_BLOCK,
    text: { type: 'mrkdwn', text: `⏹ Stopped by <@${stop.userId}> ${when(stop.atMs)}` },
    accessory: {
      type: 'button',
      action_id: WEEKLY_UNDO_ACTION,
      text: { type: 'plain_text', text: 'Undo' },
      value: stop.kind,
      accessibility_label: 'Restart these weekly posts',
    },
  });
}

/** Restarted by Undo: who and when, and the Stop button again. */
export function restartedOn(
  blocks: readonly MessageBlock[],
  restart: { userId: string; atMs: number; kind: ScheduleKind },
): MessageBlock[] | undefined {
  return replaceStop(blocks, {
    type: 'section',
    block_id: WEEKLY_STOP_BLOCK,
    text: { type: 'mrkdwn', text: `▶️ Restarted by <@${restart.userId}> ${when(restart.atMs)}` },
    accessory: weeklyStopButton(restart.kind),
  });
}

/** Slack's copy of a message of ours is far below this (12,000 characters of text, 50 blocks). */
const SEEN_MAX_CHARS = 100_000;

/** A clicked message's blocks as the action payload carries them, if they look like Block Kit blocks. */
export function seenBlocks(blocks: unknown): MessageBlock[] | undefined {
  if (!Array.isArray(blocks) || blocks.length === 0 || blocks.length > LIMITS.blocks) return undefined;
  if (JSON.stringify(blocks).length > SEEN_MAX_CHARS) return undefined;
  const ok = blocks.every(
    (b: unknown) => typeof b === 'object' && b !== null && typeof (b as KnownBlock).type === 'string',
  );
  return ok ? (blocks as MessageBlock[]) : undefined;
}
