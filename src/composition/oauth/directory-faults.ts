import type { Logger } from '../../common/logger.js';
import type { InboundRequest } from '../../slack/tenant-slack-app.js';
import { DirectoryUnreadableError } from '../../tenants/ports.js';
import type { TenantSource } from '../../tenants/tenant.js';

/** Which install a request is for could not be read (Redis refused, or did not answer in time). */
export const UNREADABLE = 'unreadable';
export type Unreadable = typeof UNREADABLE;

/**
 * How long a request waits for the directory to say which install it is for: within Slack's 3 s, so a
 * command is still answered (with why) and an event refused in time for Slack to deliver it again.
 */
export const RESOLVE_DEADLINE_MS = 2_000;

/** What a person is told when their command arrives while the bot cannot read which install it is for. */
export const UNREADABLE_NOTICE =
  "I can't reach my storage right now, so I couldn't look up this workspace's install and did nothing with your command. Nothing was started or changed. Try it again in a minute.";

/** `work`'s answer, or `UNREADABLE` once `ms` have passed (the work goes on; a later request joins it). */
export function withinDeadline<T>(work: Promise<T>, ms = RESOLVE_DEADLINE_MS): Promise<T | Unreadable> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Unreadable>((resolve) => {
    timer = setTimeout(() => resolve(UNREADABLE), ms);
    timer.unref();
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/**
 * A request whose install could not be read. Nothing of it is dropped: a command is answered in its
 * acknowledgement with what happened and what to do (its person retries it); anything else (an event, a
 * click) is refused (the front door answers 503), so Slack delivers an event again (its retries) and shows
 * the person that a click did not go through.
 */
export async function answerUnreadable(
  request: InboundRequest,
  source: TenantSource,
  log: Logger,
): Promise<void> {
  const body = request.body as { command?: unknown; event?: { type?: unknown } };
  const command = typeof body.command === 'string';
  const event = typeof body.event?.type === 'string' ? body.event.type : undefined;
  log.warn(
    { source, ...(event ? { event } : {}), retry: request.retryNum },
    command
      ? 'could not read which install a command is for (the directory did not answer); told the person to try again'
      : 'could not read which install a request is for (the directory did not answer); refused with 503 so Slack retries it',
  );
  if (command) return request.ack({ response_type: 'ephemeral', text: UNREADABLE_NOTICE });
  throw new DirectoryUnreadableError();
}
