import type { AssistantThread } from '../../../jobs/assistant-thread.js';
import type { InboundMessage } from '../../../jobs/conversation-service.js';
import type { AssistantMessageDeps } from './user-message.js';

/**
 * A thread's first message can be handled before its `assistant_thread_started` is recorded: the two
 * events come at once, and may reach different replicas. A message in a DM thread this young, with no
 * record and no job, waits a little for the start to be recorded (re-reading the shared store), so it gets
 * its thread's context; a start later than this would have come long after the thread opened.
 */
export const YOUNG_THREAD_SECONDS = 60;
/** The re-reads' pauses: about 3 s in all, the first ones short (the start is usually a moment away). */
export const THREAD_WAIT_STEPS_MS = [50, 100, 200, 400, 800, 1_450] as const;

/** The assistant thread of a message, waiting for a young one's start to be recorded. Throws if the store does. */
export async function threadOfMessage(
  deps: Pick<AssistantMessageDeps, 'assistant' | 'jobs'>,
  message: InboundMessage & { threadTs: string },
  pause: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<AssistantThread | undefined> {
  const read = () => deps.assistant.threads.get(message.channelId, message.threadTs);
  const thread = await read();
  if (thread || !mayBeStarting(message)) return thread;
  // A reply in a DM job's thread (the card's) is an ordinary DM thread: nothing to wait for.
  if (await deps.jobs.jobOfThread(message.channelId, message.threadTs).catch(() => undefined))
    return undefined;
  for (const ms of THREAD_WAIT_STEPS_MS) {
    await pause(ms);
    const started = await read();
    if (started) return started;
  }
  return undefined;
}

/** A reply in a DM thread opened moments before (Slack's own timestamps: no local clock involved). */
function mayBeStarting(message: InboundMessage & { threadTs: string }): boolean {
  if (message.channelType !== 'im' || message.threadTs === message.ts) return false;
  const age = Number(message.ts) - Number(message.threadTs);
  return Number.isFinite(age) && age >= 0 && age <= YOUNG_THREAD_SECONDS;
}
