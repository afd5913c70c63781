import { describeError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';

/** Block Kit's 2026 blocks: a workspace or client without them refuses the whole message (`invalid_blocks`). */
const NEW_BLOCK_TYPES: ReadonlySet<string> = new Set(['data_visualization', 'data_table']);

/** How long a refusal is remembered: a day, then the charts are tried again (the workspace may have them). */
export const REFUSAL_MEMORY_MS = 24 * 60 * 60 * 1000;

/** The key the refusal is remembered under: one workspace per bot token, so one key. */
const REFUSAL_KEY = 'slack:new-blocks-refused';

export function hasNewBlocks(blocks: readonly { type: string }[] | undefined): boolean {
  return blocks?.some((block) => NEW_BLOCK_TYPES.has(block.type)) ?? false;
}

/**
 * The block_id prefix of a stand-in: a block that says what a new block says (a data table's rows as a
 * list), sent only where the new blocks are not, so a message is never both or neither.
 */
export const STAND_IN_PREFIX = 'stand_in_';

const isStandIn = (block: { type: string }) => {
  const id = (block as { block_id?: unknown }).block_id;
  return typeof id === 'string' && id.startsWith(STAND_IN_PREFIX);
};

/** The message's blocks without charts and data tables: the same report, as it was before them. */
export function withoutNewBlocks<B extends { type: string }>(blocks: readonly B[]): B[] {
  return blocks.filter((block) => !NEW_BLOCK_TYPES.has(block.type));
}

/** The blocks to send where the new blocks are taken: their stand-ins left out. */
export function withNewBlocks<B extends { type: string }>(blocks: readonly B[]): B[] {
  return hasNewBlocks(blocks) ? blocks.filter((block) => !isStandIn(block)) : [...blocks];
}

/** Where the refusal is remembered: the analytics cache's store fits (shared by replicas in Redis mode). */
export interface RefusalMemory {
  get(key: string): Promise<unknown>;
  set(key: string, value: unknown, ttlMs: number): Promise<void>;
}

/**
 * Remembers, for a day and for every replica, that Slack refused the 2026 blocks in this workspace, so a
 * refusal happens once, not once per report: after it every message goes out without them, as before
 * they existed. Every Slack call that sends blocks asks `blocksFor` first, on `invalid_blocks` asks
 * `retryWithout` for the blocks to send once more, and calls `confirm` when Slack took those.
 */
export class NewBlocksGate {
  /** This process's copy of the flag, so a refused workspace costs no store read per message. */
  private refusedUntil = 0;

  constructor(
    private readonly memory: RefusalMemory | undefined,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** True when this workspace refused the new blocks within the last day (a store failure reads as no). */
  async refused(): Promise<boolean> {
    if (this.refusedUntil > this.now()) return true;
    if (!this.memory) return false;
    try {
      const until = await this.memory.get(REFUSAL_KEY);
      if (typeof until === 'number' && until > this.now()) {
        this.refusedUntil = until;
        return true;
      }
    } catch (error) {
      this.logger.warn({ error: describeError(error) }, 'could not read the new-blocks refusal');
    }
    return false;
  }

  /** The blocks to send: without the new ones where the workspace refused them, else without their stand-ins. */
  async blocksFor<B extends { type: string }>(blocks: B[] | undefined): Promise<B[] | undefined> {
    if (!blocks || !hasNewBlocks(blocks)) return blocks;
    return (await this.refused()) ? withoutNewBlocks(blocks) : withNewBlocks(blocks);
  }

  /**
   * After Slack answered `code` to `blocks`: when it refused blocks that hold new ones, the blocks to try
   * once more (the message's `original` blocks without them, their stand-ins back in); else undefined (the
   * caller's own fallback applies). Only `confirm` after that retry was taken remembers the refusal: a
   * message refused for another reason proves nothing.
   */
  async retryWithout<B extends { type: string }>(
    blocks: B[] | undefined,
    code: string,
    original: B[] | undefined = blocks,
  ): Promise<B[] | undefined> {
    return retryBlocks(blocks, code, original);
  }

  /** Slack took the message without the new blocks it refused with them: remembered for a day. */
  async confirm(): Promise<void> {
    const until = this.now() + REFUSAL_MEMORY_MS;
    this.refusedUntil = until;
    this.logger.warn({}, 'Slack refused charts (invalid_blocks): reports go out without them for a day');
    await this.memory?.set(REFUSAL_KEY, until, REFUSAL_MEMORY_MS).catch((error: unknown) => {
      this.logger.warn({ error: describeError(error) }, 'could not remember the new-blocks refusal');
    });
  }
}

function retryBlocks<B extends { type: string }>(
  blocks: B[] | undefined,
  code: string,
  original: B[] | undefined,
): B[] | undefined {
  if (code !== 'invalid_blocks' || !blocks || !hasNewBlocks(blocks)) return undefined;
  return withoutNewBlocks(original ?? blocks);
}

/** For callers that send blocks without a gate (tests, tools): strips only stand-ins, never remembers. */
export const NO_GATE = {
  blocksFor: async <B extends { type: string }>(blocks: B[] | undefined) =>
    blocks ? withNewBlocks(blocks) : blocks,
  retryWithout: async <B extends { type: string }>(
    blocks: B[] | undefined,
    code: string,
    original: B[] | undefined = blocks,
  ) => retryBlocks(blocks, code, original),
  confirm: async () => {},
};

export type BlocksGate = Pick<NewBlocksGate, 'blocksFor' | 'retryWithout' | 'confirm'>;
