import Keyv from 'keyv';
import type { Logger } from '../common/logger.js';
import {
  ASSISTANT_THREAD_TTL_MS,
  type AssistantThread,
  type AssistantThreadStore,
  PENDING_TEXT_MAX,
  type PendingInstruction,
} from '../jobs/assistant-thread.js';
import type { KeyValues } from './key-values.js';
import { guardState } from './keyv-job-store.js';
import { BoundedMemoryStore } from './memory/bounded-memory-store.js';
import type { RedisClient } from './redis/redis-client.js';
import { redisKeyv } from './redis/redis-keyv.js';
import { storeErrorListener } from './store-errors.js';

/** Assistant threads by (DM channel, thread ts), each kept a month after its last event. */
export class KeyvAssistantThreadStore implements AssistantThreadStore {
  constructor(private readonly keyv: KeyValues) {}

  get(channelId: string, threadTs: string): Promise<AssistantThread | undefined> {
    return guardState(
      async () => (await this.keyv.get<AssistantThread>(threadKey(channelId, threadTs))) ?? undefined,
    );
  }

  save(thread: AssistantThread): Promise<void> {
    return guardState(async () => {
      // Only the fields of the port: an event's payload is never stored as it came.
      const record: AssistantThread = {
        channelId: thread.channelId,
        threadTs: thread.threadTs,
        userId: thread.userId,
        ...(thread.contextChannelId ? { contextChannelId: thread.contextChannelId } : {}),
      };
      await this.keyv.set(threadKey(thread.channelId, thread.threadTs), record, ASSISTANT_THREAD_TTL_MS);
    });
  }

  savePending(pending: PendingInstruction, ttlMs: number): Promise<void> {
    return guardState(async () => {
      const record: PendingInstruction = {
        id: pending.id,
        teamId: pending.teamId,
        channelId: pending.channelId,
        threadTs: pending.threadTs,
        messageTs: pending.messageTs,
        userId: pending.userId,
        text: pending.text.slice(0, PENDING_TEXT_MAX),
        ...(pending.botUserId ? { botUserId: pending.botUserId } : {}),
      };
      await this.keyv.set(pendingKey(pending.id), record, ttlMs);
    });
  }

  pending(id: string): Promise<PendingInstruction | undefined> {
    return guardState(async () => (await this.keyv.get<PendingInstruction>(pendingKey(id))) ?? undefined);
  }

  dropPending(id: string): Promise<void> {
    return guardState(async () => {
      await this.keyv.delete(pendingKey(id));
    });
  }
}

function pendingKey(id: string): string {
  return `assistant-pending:${id}`;
}

function threadKey(channelId: string, threadTs: string): string {
  return `assistant-thread:${channelId}:${threadTs}`;
}

export function createMemoryAssistantThreadStore(logger: Logger): KeyvAssistantThreadStore {
  const keyv = new Keyv({
    store: new BoundedMemoryStore({ maxEntries: 10_000 }),
    namespace: 'docs-agent-assistant-threads',
  });
  keyv.on('error', storeErrorListener(logger, 'assistant thread store error'));
  return new KeyvAssistantThreadStore(keyv);
}

/**
 * Assistant threads in Redis beside the job store (`<ns>::assistant-thread:<channel>:<ts>`, Keyv, namespaced,
 * expiring): every replica sees a thread's context. Redis errors become `state_unavailable`.
 */
export function createRedisAssistantThreadStore(
  client: RedisClient,
  namespace: string,
  logger: Logger,
): KeyvAssistantThreadStore {
  return new KeyvAssistantThreadStore(redisKeyv(client, namespace, logger, 'assistant thread store'));
}
