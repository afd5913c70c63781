import type { Button } from '@slack/types';
import { AppError } from '../common/errors.js';
import type { VersionedRecords } from '../common/versioned-records.js';
import type { Outbox } from '../delivery/ports.js';
import type { WeeklySchedule } from '../insights/ports.js';
import type { JobRecord } from '../jobs/domain/job.js';
import { cardLink } from './health-fix-claims.js';
import { ALERT_MENU_ACTION, alertMenu } from './messages/health-alert.js';
import {
  fixButtonOf,
  fixEndedOn,
  fixStartedOn,
  mutedOn,
  seenBlocks,
  unmutedOn,
} from './messages/shared-state.js';
import type { MessageBlock, SlackMessage } from './messages/types.js';

/** A string store with expiry (the evidence store's, under a prefix of its own): the rows fix jobs hold. */
export interface MessageModelStore {
  put(key: string, json: string, ttlMs: number): Promise<void>;
  get(key: string): Promise<string | undefined>;
}

/** What a shared message shows now, kept so that the next change starts from it. */
interface MessageModel {
  text: string;
  blocks: MessageBlock[];
  /** The update's order: a later change always has a higher one (the outbox keeps the highest). */
  seq: number;
  /** A weekly post's schedule as it was when Stop removed it (Undo puts it back). */
  stopped?: WeeklySchedule;
}

/** A message as a click's payload carries it (`body.message`). */
export interface SeenMessage {
  text?: unknown;
  blocks?: unknown;
}

/** The outbox key of a shared message's update: `shared:<channel>:<ts>`. */
export const SHARED_MESSAGE_KEY = 'shared:';
/** The outbox key of a mute's end: `shared-unmute:<channel>:<ts>:<until>`. */
export const UNMUTE_KEY = 'shared-unmute:';
/** Kept as long as the outbox remembers its deliveries. */
const KEEP_MS = 30 * 24 * 60 * 60 * 1000;
const CHANNEL = /^[CGD][A-Z0-9]{2,}$/;
const MESSAGE_TS = /^\d{10}\.\d{6}$/;
/** Changes of one message that went first before this one gives up (each retry starts from the fresh state). */
export const SHARED_CHANGE_ATTEMPTS = 5;

/** The channel and ts of a message the bot may edit, checked (they make the keys). */
export function sharedMessageRef(channel: unknown, ts: unknown): { channel: string; ts: string } | undefined {
  return typeof channel === 'string' && CHANNEL.test(channel) && typeof ts === 'string' && MESSAGE_TS.test(ts)
    ? { channel, ts }
    : undefined;
}

/**
 * The bot's shared messages (alerts, posted reports, weekly posts) changed in place for everyone when
 * someone acts on them. Each change is owed work: one update delivery per message (`shared:<channel>:<ts>`)
 * whose latest state wins, so a retry lands once and never puts an older state back.
 *
 * The render model is the message itself: the blocks of the click's payload (Slack's copy of what it shows),
 * or, once changed, the state last owed, kept here; edits work on blocks by structure (messages/shared-state).
 * That state is versioned: two changes of one message at the same instant (two people, two replicas) each
 * write only over the version they started from; the one that finds it changed starts again from the fresh
 * state (a few times at most), so both lines show. The update's `seq` rises with each, so Slack ends on it.
 */
export class SharedMessages {
  constructor(
    private readonly o: {
      outbox: Outbox;
      store: MessageModelStore;
      models: VersionedRecords;
      now: () => number;
    },
  ) {}

  /** Keeps the message as clicked when nothing newer is kept (a Fix's form is open; its job may follow). */
  async remember(channel: string, ts: string, seen: SeenMessage): Promise<void> {
    const model = modelOf(seen, 0);
    if (!model || (await this.kept(channel, ts))) return;
    // Only over nothing: a change written meanwhile is newer than the click's copy.
    await this.o.models.write(modelKey(channel, ts), JSON.stringify(model), 0, KEEP_MS);
  }

  /**
   * Applies `edit` to the message's latest state (kept, else `seen`) and owes the result. Resolves false
   * when there is nothing to start from or the edit does not apply (the message is left as it is).
   */
  async change(
    channel: string,
    ts: string,
    seen: SeenMessage | undefined,
    /** `atMs`: now, for the "who and when" line. */
    edit: (blocks: readonly MessageBlock[], atMs: number) => MessageBlock[] | undefined,
    extra: { stopped?: WeeklySchedule } = {},
  ): Promise<boolean> {
    const model = await this.written(channel, ts, seen, edit, extra);
    if (!model) return false;
    const payload: SlackMessage = { text: model.text, blocks: model.blocks };
    await this.o.outbox.owe({
      key: `${SHARED_MESSAGE_KEY}${channel}:${ts}`,
      target: { kind: 'update', channel, ts },
      payload,
      priority: 'reply',
      seq: model.seq,
    });
    return true;
  }

  /**
   * Marks row `row` of the message as fixed by `record`'s job (who, when, its thread), and remembers which
   * row that job holds, with the button as it was, so its end puts the button back.
   */
  async fixStarted(channel: string, ts: string, row: string, record: JobRecord): Promise<boolean> {
    const link = cardLink(record);
    let button: Pick<Button, 'text' | 'style'> | undefined;
    const changed = await this.change(channel, ts, undefined, (blocks, atMs) => {
      const shown = fixButtonOf(blocks, row);
      button = undefined; // each attempt edits the state it read
      if (shown && shown.text.text !== 'Fixing…')
        button = { text: shown.text, ...(shown.style ? { style: shown.style } : {}) };
      return fixStartedOn(blocks, row, { userId: record.requesterId, atMs, link });
    });
    const held: HeldRow = {
      channel,
      ts,
      row,
      button: button ?? { text: { type: 'plain_text', text: 'Fix' } },
    };
    if (changed) await this.o.store.put(fixKey(record.jobId), JSON.stringify(held), KEEP_MS);
    return changed;
  }

  /** A job no longer followed: the row it held (if any) is Fix again, its line saying the fix ended. */
  async jobChanged(record: JobRecord): Promise<void> {
    if (record.origin !== 'health_fix' || record.watching) return;
    const json = await this.o.store.get(fixKey(record.jobId));
    if (json === undefined) return;
    const held = JSON.parse(json) as HeldRow;
    const ref = sharedMessageRef(held.channel, held.ts);
    if (!ref || typeof held.row !== 'string') return;
    const link = cardLink(record);
    await this.change(ref.channel, ref.ts, undefined, (blocks, atMs) =>
      fixEndedOn(blocks, held.row, { userId: record.requesterId, atMs, link, button: held.button }),
    );
  }

  /**
   * A signal muted from its alert for `forMs`. The mute's end is owed first (an edit due then, in the
   * outbox: any replica runs it once, after a restart too), then the alert says who muted it and until when.
   */
  async muted(
    channel: string,
    ts: string,
    seen: SeenMessage | undefined,
    mute: { userId: string; forMs: number; signal: string },
  ): Promise<boolean> {
    const delayMs = Math.max(0, mute.forMs);
    const untilMs = this.o.now() + delayMs;
    const edit: UnmuteEdit = { name: 'unmute', untilMs, signal: mute.signal };
    await this.o.outbox.owe({
      key: `${UNMUTE_KEY}${channel}:${ts}:${untilMs}`,
      target: { kind: 'edit', channel, ts, edit },
      payload: null,
      priority: 'intermediate',
      delayMs,
      keepMs: delayMs + KEEP_MS,
    });
    const { userId } = mute;
    return this.change(channel, ts, seen, (blocks) =>
      mutedOn(blocks, { userId, untilMs, menuActionId: ALERT_MENU_ACTION }),
    );
  }

  /** A change owed for later, now due (`OwedEdits`): a mute's end puts the menu back if its line still shows. */
  async apply(channel: string, ts: string, edit: unknown): Promise<void> {
    const ref = sharedMessageRef(channel, ts);
    if (!ref || !isUnmuteEdit(edit)) return;
    const menu = alertMenu(edit.signal);
    await this.change(ref.channel, ref.ts, undefined, (blocks) =>
      unmutedOn(blocks, { untilMs: edit.untilMs, menu }),
    );
  }

  /** The schedule Stop removed from this post, if it is still kept. */
  async stoppedSchedule(channel: string, ts: string): Promise<WeeklySchedule | undefined> {
    return (await this.kept(channel, ts))?.stopped;
  }

  /**
   * The edited state, written over the version it started from; on a conflict, edited again from the fresh
   * state. Undefined when there is nothing to start from or the edit does not apply.
   */
  private async written(
    channel: string,
    ts: string,
    seen: SeenMessage | undefined,
    edit: (blocks: readonly MessageBlock[], atMs: number) => MessageBlock[] | undefined,
    extra: { stopped?: WeeklySchedule },
  ): Promise<MessageModel | undefined> {
    const key = modelKey(channel, ts);
    for (let attempt = 0; attempt < SHARED_CHANGE_ATTEMPTS; attempt += 1) {
      const record = await this.o.models.read(key);
      const kept = record && parseModel(record.json);
      const base = kept ?? (seen ? modelOf(seen, 0) : undefined);
      const now = this.o.now();
      const blocks = base && edit(base.blocks, now);
      if (!base || !blocks) return undefined;
      const model: MessageModel = {
        text: base.text,
        blocks,
        seq: Math.max(now, base.seq + 1),
        ...((extra.stopped ?? base.stopped) ? { stopped: extra.stopped ?? base.stopped } : {}),
      };
      if (await this.o.models.write(key, JSON.stringify(model), record?.version ?? 0, KEEP_MS)) return model;
    }
    throw new AppError(
      'shared_message_busy',
      `the message changed ${SHARED_CHANGE_ATTEMPTS} times while this change was being written`,
    );
  }

  private async kept(channel: string, ts: string): Promise<MessageModel | undefined> {
    const record = await this.o.models.read(modelKey(channel, ts));
    return record && parseModel(record.json);
  }
}

/** A kept state, if it reads as one. */
function parseModel(json: string): MessageModel | undefined {
  try {
    const parsed = JSON.parse(json) as Partial<MessageModel>;
    const model = modelOf(parsed, typeof parsed.seq === 'number' ? parsed.seq : 0);
    return model && { ...model, ...(parsed.stopped ? { stopped: parsed.stopped } : {}) };
  } catch {
    return undefined;
  }
}

const modelKey = (channel: string, ts: string) => `shared-msg:${channel}:${ts}`;
const fixKey = (jobId: string) => `shared-fix:${jobId}`;

/** A mute's end as the outbox keeps it: when, and the signal whose menu comes back. */
interface UnmuteEdit {
  name: 'unmute';
  untilMs: number;
  signal: string;
}

function isUnmuteEdit(edit: unknown): edit is UnmuteEdit {
  const e = edit as Partial<UnmuteEdit> | null;
  return (
    e?.name === 'unmute' &&
    Number.isSafeInteger(e.untilMs) &&
    typeof e.signal === 'string' &&
    /^[A-Za-z0-9_-]{16}$/.test(e.signal)
  );
}

/** The row a fix job holds on a shared message, and its button as it was. */
interface HeldRow {
  channel: string;
  ts: string;
  row: string;
  button: Pick<Button, 'text' | 'style'>;
}

/** A message's text (the notification fallback, capped) and blocks, if they look like Block Kit's. */
function modelOf(seen: SeenMessage, seq: number): MessageModel | undefined {
  const blocks = seenBlocks(seen.blocks);
  if (!blocks) return undefined;
  const text = typeof seen.text === 'string' ? seen.text.slice(0, 3000) : '';
  return { text, blocks, seq };
}
