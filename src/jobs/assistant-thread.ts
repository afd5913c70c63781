/**
 * An assistant thread: a thread in Slack's AI app container (the split view). The channel the user is
 * looking at (`contextChannelId`) decides the docs project of jobs and reports asked for in it.
 */
export interface AssistantThread {
  /** The DM between the user and the app that holds the thread. */
  channelId: string;
  threadTs: string;
  userId: string;
  /** The channel open beside the container when the thread started or last changed; absent: none. */
  contextChannelId?: string;
}

/**
 * Assistant threads and their context, shared by replicas (Redis) or per process (memory). Every write is
 * the whole record from one Slack event (which carries the whole context), so there is no read-modify-write.
 * A failure throws `state_unavailable`.
 */
export interface AssistantThreadStore {
  get(channelId: string, threadTs: string): Promise<AssistantThread | undefined>;
  save(thread: AssistantThread): Promise<void>;
  /** An instruction waiting for its [Start job], under an id its buttons carry (never the text), for `ttlMs`. */
  savePending(pending: PendingInstruction, ttlMs: number): Promise<void>;
  pending(id: string): Promise<PendingInstruction | undefined>;
  dropPending(id: string): Promise<void>;
}

/**
 * An instruction sent in an assistant thread with no job yet: shown back with [Start job] [Edit] [Cancel]
 * and started only on [Start job]. The message it came from, as the conversation service would read it.
 */
export interface PendingInstruction {
  id: string;
  teamId: string | null;
  /** The DM holding the assistant thread, the thread, and the instruction's own message. */
  channelId: string;
  threadTs: string;
  messageTs: string;
  userId: string;
  /** The message's Slack markup, as received (capped). */
  text: string;
  botUserId?: string;
}

/** How long a confirmation card's buttons work: a day. */
export const PENDING_INSTRUCTION_TTL_MS = 24 * 60 * 60 * 1000;

/** The longest text kept for a pending instruction (Slack's own message limit); the start checks the real one. */
export const PENDING_TEXT_MAX = 40_000;

/** How long an assistant thread's record is kept after its last event: a month. */
export const ASSISTANT_THREAD_TTL_MS = 30 * 24 * 60 * 60 * 1000;
