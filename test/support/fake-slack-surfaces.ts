import { randomBytes } from 'node:crypto';
import { traceRefusal } from './fake-slack-arguments.js';
import { type BlockKitVerdict, checkMessage } from './slack-block-kit-limits.js';

type Json = Record<string, unknown>;

/** Slack's documented view limits (https://api.slack.com/reference/surfaces/views). */
export const VIEW_LIMITS = {
  blocks: 100,
  title: 24,
  button: 24,
  callbackId: 255,
  privateMetadata: 3000,
  externalId: 255,
  inputValue: 3000,
  /** A trigger_id is valid for 3 seconds and one use. */
  triggerMs: 3000,
} as const;

export interface StoredView {
  id: string;
  hash: string;
  view: Json;
  /** The user a Home view is published for; the user who opened a modal. */
  userId?: string;
}

const len = (value: unknown) => (typeof value === 'string' ? Array.from(value).length : 0);
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Checks a view as views.open/update/push/publish do; Slack answers `invalid_arguments` with details. */
export function checkView(view: unknown, kind: 'modal' | 'home'): BlockKitVerdict {
  if (!isObject(view)) return { ok: false, error: 'invalid_blocks_format' };
  const errors: string[] = [];
  // views.publish takes only Home views, views.open/update/push only modals.
  if (view.type !== kind) errors.push('must be a valid enum value [json-pointer:/view/type]');
  const plain = (value: unknown, max: number, pointer: string, required: boolean) => {
    if (value === undefined) {
      if (required) errors.push(`must provide an object [json-pointer:/view${pointer}]`);
      return;
    }
    if (!isObject(value) || value.type !== 'plain_text' || len(value.text) === 0)
      errors.push(`must provide a plain_text object [json-pointer:/view${pointer}]`);
    else if (len(value.text) > max)
      errors.push(`must be less than ${max + 1} characters [json-pointer:/view${pointer}/text]`);
  };
  const max = (value: unknown, limit: number, pointer: string) => {
    if (len(value) > limit)
      errors.push(`must be less than ${limit + 1} characters [json-pointer:/view${pointer}]`);
  };
  if (kind === 'modal') {
    plain(view.title, VIEW_LIMITS.title, '/title', true);
    plain(view.submit, VIEW_LIMITS.button, '/submit', false);
    plain(view.close, VIEW_LIMITS.button, '/close', false);
    const hasInput = Array.isArray(view.blocks) && view.blocks.some((b) => isObject(b) && b.type === 'input');
    if (hasInput && view.submit === undefined)
      errors.push('must provide submit when the view has input blocks [json-pointer:/view/submit]');
  }
  max(view.callback_id, VIEW_LIMITS.callbackId, '/callback_id');
  max(view.private_metadata, VIEW_LIMITS.privateMetadata, '/private_metadata');
  max(view.external_id, VIEW_LIMITS.externalId, '/external_id');
  // Input blocks (label, element, initial value) are checked with every block (slack-block-kit-elements.ts).
  const blocks = checkMessage({ blocks: view.blocks ?? [] }, 'modal');
  if (!blocks.ok && blocks.error === 'invalid_blocks')
    errors.push(
      ...blocks.errors.map((e) => e.replace('[json-pointer:/blocks', '[json-pointer:/view/blocks')),
    );
  else if (!blocks.ok && blocks.error !== 'msg_blocks_too_long') return blocks;
  return errors.length > 0 ? { ok: false, error: 'invalid_blocks', errors } : { ok: true };
}

/**
 * Slack's modal and Home surfaces, and single-message reads, for the fake Slack: trigger_ids that expire
 * after 3 s and work once, views.open/update/push/publish with their limits (conversations.history /
 * replies are fake-slack-history.ts). Answers `undefined` for calls it leaves to FakeSlack.
 */
export class FakeSlackSurfaces {
  /** Clock for trigger expiry; tests may replace it. */
  now: () => number = () => Date.now();
  /** Open modals by view id. */
  readonly modals = new Map<string, StoredView>();
  /** The last Home view published, by user. */
  readonly homes = new Map<string, StoredView>();
  /** Every view refused, for tests to tell a limit from a fault. */
  readonly refusals: Array<{ method: string; verdict: BlockKitVerdict | { ok: false; error: string } }> = [];
  private readonly triggers = new Map<string, { issuedAt: number; userId: string; used: boolean }>();
  private viewCounter = 0;

  /** A trigger_id as Slack puts in an interaction payload, valid for 3 s from now, for one views.open. */
  mintTriggerId(userId = 'U0ALICE'): string {
    const id = `${Date.now()}.${Math.floor(Math.random() * 1e9)}.${randomBytes(16).toString('hex')}`;
    this.triggers.set(id, { issuedAt: this.now(), userId, used: false });
    return id;
  }

  homeOf(userId: string): Json | undefined {
    return this.homes.get(userId)?.view;
  }

  answer(method: string, args: Json): Json | undefined {
    switch (method) {
      case 'views.open':
      case 'views.push':
        return this.open(method, args);
      case 'views.update':
        return this.update(args);
      case 'views.publish':
        return this.publish(args);
      default:
        return undefined;
    }
  }

  private refuse(method: string, error: string, verdict?: BlockKitVerdict): Json {
    this.refusals.push({ method, verdict: verdict ?? { ok: false, error } });
    traceRefusal(method, verdict ?? error);
    if (verdict && !verdict.ok && verdict.error === 'invalid_blocks')
      return { ok: false, error: 'invalid_arguments', response_metadata: { messages: verdict.errors } };
    return { ok: false, error };
  }

  private stored(view: Json, userId?: string): StoredView {
    this.viewCounter += 1;
    const id = `V${String(this.viewCounter).padStart(8, '0')}`;
    return {
      id,
      hash: `${Date.now()}.${randomBytes(4).toString('hex')}`,
      view,
      ...(userId ? { userId } : {}),
    };
  }

  private answerView(stored: StoredView): Json {
    return { ok: true, view: { id: stored.id, hash: stored.hash, team_id: 'T0TEAM', ...stored.view } };
  }

  private open(method: string, args: Json): Json {
    const triggerId = String(args.trigger_id ?? '');
    const trigger = this.triggers.get(triggerId);
    if (!trigger || trigger.used) return this.refuse(method, 'invalid_trigger_id');
    if (this.now() - trigger.issuedAt > VIEW_LIMITS.triggerMs)
      return this.refuse(method, 'expired_trigger_id');
    const view = parseView(args.view);
    const verdict = checkView(view, 'modal');
    if (!verdict.ok) return this.refuse(method, verdict.error, verdict);
    trigger.used = true;
    const stored = this.stored(view as Json, trigger.userId);
    this.modals.set(stored.id, stored);
    return this.answerView(stored);
  }

  private update(args: Json): Json {
    const current =
      this.modals.get(String(args.view_id ?? '')) ??
      [...this.modals.values()].find(
        (m) => args.external_id !== undefined && m.view.external_id === args.external_id,
      );
    if (!current) return this.refuse('views.update', 'not_found');
    if (args.hash !== undefined && args.hash !== current.hash)
      return this.refuse('views.update', 'hash_conflict');
    const view = parseView(args.view);
    const verdict = checkView(view, 'modal');
    if (!verdict.ok) return this.refuse('views.update', verdict.error, verdict);
    const next = { ...current, view: view as Json, hash: `${Date.now()}.${randomBytes(4).toString('hex')}` };
    this.modals.set(current.id, next);
    return this.answerView(next);
  }

  private publish(args: Json): Json {
    const userId = String(args.user_id ?? '');
    if (!/^[UW][A-Z0-9]+$/.test(userId)) return this.refuse('views.publish', 'user_not_found');
    const current = this.homes.get(userId);
    if (args.hash !== undefined && current && args.hash !== current.hash)
      return this.refuse('views.publish', 'hash_conflict');
    const view = parseView(args.view);
    const verdict = checkView(view, 'home');
    if (!verdict.ok) return this.refuse('views.publish', verdict.error, verdict);
    const stored = { ...this.stored(view as Json, userId), ...(current ? { id: current.id } : {}) };
    this.homes.set(userId, stored);
    return this.answerView(stored);
  }
}

/** The WebClient sends `view` JSON-encoded in a form body; FakeSlack's parser has decoded it already. */
function parseView(view: unknown): unknown {
  if (typeof view !== 'string') return view;
  try {
    return JSON.parse(view);
  } catch {
    return undefined;
  }
}
