import { describeError } from '../../common/errors.js';
import type { JobNotifier } from '../ports.js';
import type { JobServiceDeps } from './deps.js';
import type { StartJobRequest, StartJobResult } from './start-job.js';

/** How long a replica holds a start it took over (the card wait, then the create): then another may take it. */
const TAKE_LEASE_MS = 90_000;
/** Starts one replica takes over per reconcile pass. */
const TAKE_LIMIT = 8;
/** Card failures that only mean "this process is stopping": the card stays owed for the others. */
const STOPPING_CODES = new Set(['card_not_confirmed', 'shutting_down']);

/**
 * A stopping replica creates no job it has not started creating: a slash command's start is handed over
 * (Redis) with its card's ts if Slack confirmed it, else under its card's delivery key, which stays owed in
 * the outbox. True when handed over: the caller says nothing more (the person gets their card and job from
 * the replica that takes it). In memory mode, or if the hand-over cannot be written, the start goes on here.
 */
export async function handOverIfStopping(
  deps: Pick<JobServiceDeps, 'handovers' | 'stopping' | 'logger'>,
  request: StartJobRequest,
  id: string,
  card: { ts: string } | { error: unknown },
): Promise<boolean> {
  if (!deps.handovers || !deps.stopping?.() || request.origin !== 'command') return false;
  if ('error' in card && !STOPPING_CODES.has(String((card.error as { code?: unknown }).code))) return false;
  const { handover: _taken, ...rest } = request;
  try {
    await deps.handovers.handOver({ id, request: rest, ...('ts' in card ? { cardTs: card.ts } : {}) });
  } catch (error) {
    deps.logger.warn(
      { channelId: request.channelId, error: describeError(error) },
      'could not hand a job start over; finishing it here',
    );
    return false;
  }
  deps.logger.info(
    { channelId: request.channelId, handover: id, cardPosted: 'ts' in card },
    'stopping: job start handed over to the other replicas',
  );
  return true;
}

/**
 * The reconciler's pass in every replica: starts a stopping replica handed over are finished here (the card
 * under its key, then the job, created at most once), in the background, at most `TAKE_LIMIT` at once, so a
 * card waiting for Slack holds up neither the pass nor start-up. A start the state store could not take is
 * due again once this replica's hold lapses. Resolves how many it took.
 */
export async function takeOverStarts(
  deps: Pick<JobServiceDeps, 'handovers' | 'stopping' | 'logger'> & {
    notifier?: Pick<JobNotifier, 'tellStartFailed'>;
  },
  start: (request: StartJobRequest) => Promise<StartJobResult>,
  running: {
    readonly size: number;
    add(start: Promise<void>): unknown;
    delete(start: Promise<void>): boolean;
  },
): Promise<number> {
  const handovers = deps.handovers;
  const free = TAKE_LIMIT - running.size;
  // A stopping replica takes none: it would only hand them over again.
  if (!handovers || deps.stopping?.() || free <= 0) return 0;
  const taken = await handovers.take(free, TAKE_LEASE_MS);
  for (const { id, request, cardTs } of taken) {
    deps.logger.info({ channelId: request.channelId, handover: id }, 'taking over a handed-over job start');
    const finishing = (async () => {
      const result = await start({ ...request, handover: { id, ...(cardTs ? { cardTs } : {}) } });
      if (result.ok || result.stage === 'handed_over' || result.stage === 'state') return;
      // The card was refused for good (the create's failures are on the card and already ended it): the
      // person is told through their command's response_url, as the replica they asked would have.
      if (result.stage === 'card') {
        deps.logger.warn(
          { channelId: request.channelId, error: describeError(result.error) },
          'a handed-over job start could not post its card; not started',
        );
        if (request.responseUrl)
          await deps.notifier?.tellStartFailed?.(request.responseUrl, id, result.error);
      }
      await handovers.done(id);
    })()
      .catch((error: unknown) =>
        deps.logger.warn(
          { handover: id, error: describeError(error) },
          'handed-over job start failed; retried',
        ),
      )
      .finally(() => running.delete(finishing));
    running.add(finishing);
  }
  return taken.length;
}
