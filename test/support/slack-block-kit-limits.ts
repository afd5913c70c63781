/**
 * Slack's documented Block Kit limits (https://api.slack.com/reference/block-kit), and the undocumented
 * total-text limit behind `msg_blocks_too_long` (bolt-js #2509), checked the way Slack checks them, so the
 * fake Slack refuses what real Slack refuses. Error strings follow Slack's `invalid_blocks` `errors` array.
 */

import { traceRefusal } from './fake-slack-arguments.js';
import { checkDataTable, checkDataVisualization, hasNewBlocks } from './slack-block-kit-charts.js';
import {
  ACTIONS_ELEMENTS,
  CONTEXT_ELEMENTS,
  checkElement,
  checkImageBlock,
  checkInputBlock,
  isObject,
  len,
  SECTION_ACCESSORIES,
  textObject,
  tooLong,
} from './slack-block-kit-elements.js';
import { checkRichText } from './slack-block-kit-rich-text.js';

export const SLACK_LIMITS = {
  messageBlocks: 50,
  surfaceBlocks: 100,
  messageText: 40_000,
  /** Sum of every text in a message's blocks above which Slack answers `msg_blocks_too_long`. */
  totalBlockText: 12_000,
  sectionText: 3000,
  fields: 10,
  fieldText: 2000,
  headerText: 150,
  contextElements: 10,
  actionsElements: 25,
  /** context_actions: feedback buttons and icon buttons only. */
  contextActionsElements: 5,
  accessibilityLabel: 75,
  buttonText: 75,
  buttonUrl: 3000,
  buttonValue: 2000,
  actionId: 255,
  blockId: 255,
} as const;

export type BlockKitVerdict =
  | { ok: true }
  | { ok: false; error: 'invalid_blocks'; errors: string[] }
  | { ok: false; error: 'msg_blocks_too_long' | 'msg_too_long' | 'invalid_blocks_format' };

type Json = Record<string, unknown>;

/** Every string under a `text` key (text objects, rich text elements), summed for the total-text limit. */
export function totalBlockText(blocks: unknown): number {
  let total = 0;
  const walk = (value: unknown, key: string | undefined) => {
    if (typeof value === 'string') {
      if (key === 'text') total += len(value);
    } else if (Array.isArray(value)) {
      for (const item of value) walk(item, undefined);
    } else if (isObject(value)) {
      for (const [k, v] of Object.entries(value)) walk(v, k);
    }
  };
  walk(blocks, undefined);
  return total;
}

/** Checks a message (chat.postMessage / update / postEphemeral / response_url payload). */
export function checkMessage(
  args: { text?: unknown; blocks?: unknown },
  surface: 'message' | 'modal' = 'message',
): BlockKitVerdict {
  if (len(args.text) > SLACK_LIMITS.messageText) return { ok: false, error: 'msg_too_long' };
  const blocks = args.blocks;
  if (blocks === undefined || blocks === null || blocks === '') return { ok: true };
  if (!Array.isArray(blocks)) return { ok: false, error: 'invalid_blocks_format' };
  const errors: string[] = [];
  const max = surface === 'message' ? SLACK_LIMITS.messageBlocks : SLACK_LIMITS.surfaceBlocks;
  if (blocks.length > max) errors.push(`must be less than ${max + 1} items [json-pointer:/blocks]`);
  blocks.forEach((block, i) => {
    checkBlock(block, `/blocks/${i}`, errors);
  });
  if (errors.length > 0) return { ok: false, error: 'invalid_blocks', errors };
  if (totalBlockText(blocks) > SLACK_LIMITS.totalBlockText)
    return { ok: false, error: 'msg_blocks_too_long' };
  return { ok: true };
}

function checkBlock(block: unknown, pointer: string, errors: string[]): void {
  if (!isObject(block) || typeof block.type !== 'string') {
    errors.push(`must provide an object [json-pointer:${pointer}]`);
    return;
  }
  if (block.block_id !== undefined)
    tooLong(block.block_id, SLACK_LIMITS.blockId, `${pointer}/block_id`, errors);
  switch (block.type) {
    case 'section': {
      if (block.text === undefined && block.fields === undefined)
        errors.push(`must provide text or fields [json-pointer:${pointer}]`);
      if (block.text !== undefined)
        textObject(block.text, `${pointer}/text`, SLACK_LIMITS.sectionText, errors);
      if (block.fields !== undefined) {
        if (!Array.isArray(block.fields) || block.fields.length > SLACK_LIMITS.fields)
          errors.push(`must be less than ${SLACK_LIMITS.fields + 1} items [json-pointer:${pointer}/fields]`);
        if (Array.isArray(block.fields))
          block.fields.forEach((f, i) => {
            textObject(f, `${pointer}/fields/${i}`, SLACK_LIMITS.fieldText, errors);
          });
      }
      if (block.accessory !== undefined)
        checkElement(block.accessory, `${pointer}/accessory`, errors, SECTION_ACCESSORIES);
      return;
    }
    case 'header':
      textObject(block.text, `${pointer}/text`, SLACK_LIMITS.headerText, errors, true);
      return;
    case 'context': {
      const elements = block.elements;
      if (
        !Array.isArray(elements) ||
        elements.length === 0 ||
        elements.length > SLACK_LIMITS.contextElements
      ) {
        errors.push(
          `must be between 1 and ${SLACK_LIMITS.contextElements} items [json-pointer:${pointer}/elements]`,
        );
        return;
      }
      elements.forEach((e, i) => {
        if (isObject(e) && e.type === 'image')
          checkElement(e, `${pointer}/elements/${i}`, errors, CONTEXT_ELEMENTS);
        else textObject(e, `${pointer}/elements/${i}`, SLACK_LIMITS.sectionText, errors);
      });
      return;
    }
    case 'actions': {
      const elements = block.elements;
      if (
        !Array.isArray(elements) ||
        elements.length === 0 ||
        elements.length > SLACK_LIMITS.actionsElements
      ) {
        errors.push(
          `must be between 1 and ${SLACK_LIMITS.actionsElements} items [json-pointer:${pointer}/elements]`,
        );
        return;
      }
      elements.forEach((e, i) => {
        // Feedback buttons exist only inside a context_actions block.
        if (isObject(e) && e.type === 'feedback_buttons')
          errors.push(`must be a valid enum value [json-pointer:${pointer}/elements/${i}/type]`);
        else checkElement(e, `${pointer}/elements/${i}`, errors, ACTIONS_ELEMENTS);
      });
      return;
    }
    case 'context_actions':
      checkContextActions(block, pointer, errors);
      return;
    case 'data_visualization':
      checkDataVisualization(block, pointer, errors);
      return;
    case 'data_table':
      checkDataTable(block, pointer, errors);
      return;
    case 'rich_text':
      checkRichText(block, pointer, errors);
      return;
    case 'image':
      checkImageBlock(block, pointer, errors);
      return;
    case 'input':
      checkInputBlock(block, pointer, errors);
      return;
    case 'divider':
      return;
    default:
      // Block types the bot does not send are not modelled here: teach the fake before the bot sends one.
      errors.push(`must be a valid enum value [json-pointer:${pointer}/type]`);
  }
}

/** `context_actions` (messages): 1 to 5 `feedback_buttons` or `icon_button` elements. */
function checkContextActions(block: Json, pointer: string, errors: string[]): void {
  const elements = block.elements;
  const max = SLACK_LIMITS.contextActionsElements;
  if (!Array.isArray(elements) || elements.length === 0 || elements.length > max) {
    errors.push(`must be between 1 and ${max} items [json-pointer:${pointer}/elements]`);
    return;
  }
  elements.forEach((element, i) => {
    const at = `${pointer}/elements/${i}`;
    if (!isObject(element) || (element.type !== 'feedback_buttons' && element.type !== 'icon_button')) {
      errors.push(`must be a valid enum value [json-pointer:${at}/type]`);
      return;
    }
    if (element.action_id !== undefined)
      tooLong(element.action_id, SLACK_LIMITS.actionId, `${at}/action_id`, errors);
    if (element.type === 'icon_button') {
      if (typeof element.icon !== 'string' || element.icon.length === 0)
        errors.push(`must provide a string [json-pointer:${at}/icon]`);
      textObject(element.text, `${at}/text`, SLACK_LIMITS.buttonText, errors, true);
      return;
    }
    for (const side of ['positive_button', 'negative_button'] as const) {
      const button = element[side];
      if (!isObject(button)) {
        errors.push(`must provide an object [json-pointer:${at}/${side}]`);
        continue;
      }
      textObject(button.text, `${at}/${side}/text`, SLACK_LIMITS.buttonText, errors, true);
      if (typeof button.value !== 'string' || button.value.length === 0)
        errors.push(`must be more than 0 characters [json-pointer:${at}/${side}/value]`);
      tooLong(button.value, SLACK_LIMITS.buttonValue, `${at}/${side}/value`, errors);
      if (button.accessibility_label !== undefined)
        tooLong(
          button.accessibility_label,
          SLACK_LIMITS.accessibilityLabel,
          `${at}/${side}/accessibility_label`,
          errors,
        );
    }
  });
}

/** Methods whose arguments carry a message's blocks (a stream's blocks come with its end). */
const BLOCK_KIT_METHODS = new Set([
  'chat.postMessage',
  'chat.update',
  'chat.postEphemeral',
  'chat.stopStream',
]);

/** What the fake Slack applies to every call: Block Kit limits, and response_url's 5 uses in 30 minutes. */
export class BlockKitEnforcer {
  /** Every refusal, so a test can tell a limit from an injected fault. */
  readonly refusals: Array<{ method: string; verdict: BlockKitVerdict }> = [];
  /** Clock for response_url expiry; tests may replace it. */
  now: () => number = () => Date.now();
  private readonly issuedAt = new Map<string, number>();
  private readonly uses = new Map<string, number>();
  private readonly forcedRefusals: string[] = [];
  /**
   * A workspace or client without the 2026 blocks: every message carrying `data_visualization` or
   * `data_table` is refused with `invalid_blocks`, as Slack does there.
   */
  refuseNewBlocks = false;

  /** The next response_url answer that carries blocks is refused with HTTP 400 and this error. */
  refuseNextBlocksResponse(error = 'invalid_blocks'): void {
    this.forcedRefusals.push(error);
  }

  methodRefusal(method: string, args: Json): BlockKitVerdict | undefined {
    if (!BLOCK_KIT_METHODS.has(method)) return undefined;
    const verdict = this.newBlocksRefusal(args) ?? checkMessage(args);
    if (verdict.ok) return undefined;
    this.refusals.push({ method, verdict });
    traceRefusal(method, verdict);
    return verdict;
  }

  /** Slack answers a response_url with a plain-text body: 404 when used up or expired, 400 on bad blocks. */
  responseUrlRefusal(path: string, body: Json): { status: number; error: string } | undefined {
    const issuedAt = this.issuedAt.get(path) ?? this.now();
    this.issuedAt.set(path, issuedAt);
    const uses = (this.uses.get(path) ?? 0) + 1;
    this.uses.set(path, uses);
    if (this.now() - issuedAt > 30 * 60_000) return { status: 404, error: 'expired_url' };
    if (uses > 5) return { status: 404, error: 'used_url' };
    if (Array.isArray(body.blocks) && body.blocks.length > 0 && this.forcedRefusals.length > 0)
      return { status: 400, error: this.forcedRefusals.shift()! };
    const verdict = this.newBlocksRefusal(body) ?? checkMessage(body);
    if (verdict.ok) return undefined;
    this.refusals.push({ method: 'response_url', verdict });
    traceRefusal('response_url', verdict);
    return { status: 400, error: verdict.error };
  }

  private newBlocksRefusal(args: Json): BlockKitVerdict | undefined {
    if (!this.refuseNewBlocks || !hasNewBlocks(args.blocks)) return undefined;
    return { ok: false, error: 'invalid_blocks', errors: ['unsupported block type [json-pointer:/blocks]'] };
  }
}
