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
}

/** How long an assistant thread's record is kept after its last event: a month. */
export const ASSISTANT_THREAD_TTL_MS = 30 * 24 * 60 * 60 * 1000;
