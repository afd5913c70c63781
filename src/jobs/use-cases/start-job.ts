import { randomUUID } from 'node:crypto';
import { AppError, describeError } from '../../common/errors.js';
import type { HourlyQuota } from '../../common/hourly-quota.js';
import { findSecret, type SecretKind, scrubSecrets } from '../../common/secret-shapes.js';
import { type AgentJob, type JobOrigin, type JobRecord, newJobRecord } from '../domain/job.js';
import { type JobServiceDeps, oweOrLog } from './deps.js';
import { refundIfNeverSent, takeJobBudget } from './job-budget.js';
import { handOverIfStopping } from './start-handover.js';

export interface StartJobRequest {
  teamId: string | null;
  channelId: string;
  /** The user's own message when the job starts from a mention or DM; null for slash commands. */
  threadTs: string | null;
  requesterId: string;
  /** Plain text, already converted from Slack markup. */
  prompt: string;
  /**
   * Quoted conversation sent to the agent after the prompt (a mention inside an ordinary thread), already
   * labelled as context. Not shown on the card.
   */
  context?: string;
  origin: JobOrigin;
  /** The person's message that asked for the job (mention, DM, reacted or shortcut message), if any. */
  sourceTs?: string;
  /**
   * The channel whose docs project the job acts on when it is not the one the card is posted in (an
   * assistant thread: the channel the user is looking at). Default: `channelId`.
   */
  projectChannelId?: string;
  /** Set when a /docs-health gap started the job: kept on the record for the "did it work?" post. */
  evidenceRef?: string;
  /** Where to answer the person when no card can say it (a slash command's response_url). */
  responseUrl?: string;
  /** A start a stopping replica handed over: its id (which keys the card) and its card's ts if posted. */
  handover?: { id: string; cardTs?: string };
}

export type StartJobResult =
  | { ok: true; record: JobRecord }
  /** The state store did not answer: nothing was posted or created. */
  | { ok: false; stage: 'state'; error: unknown }
  | { ok: false; stage: 'card'; error: unknown }
  | { ok: false; stage: 'create'; error: unknown }
  /**
   * The instruction holds a credential (a token or key shape): nothing was stored, posted or sent, and the
   * text is dropped. The caller tells the person privately, naming only the kind.
   */
  | { ok: false; stage: 'secret'; kind: SecretKind; error?: undefined }
  /** This process is stopping: another replica finishes the start (its card, then its job). */
  | { ok: false; stage: 'handed_over'; error?: undefined };

export class UntrackedJobError extends AppError<'state_unavailable'> {
  constructor(
    readonly jobId: string,
    cause: unknown,
  ) {
    super('state_unavailable', `Job ${jobId} was created but the bot could not save it to follow it`, {
      cause,
    });
  }
}

/** Thread key no Slack message has: the probe read of a slash command (no thread yet). */
const cardlessProbe = '0000000000.000000';

/** Posts the job card, creates the agent job within the hourly budget, saves it and schedules its first poll. */
export async function startJob(deps: JobServiceDeps, unchecked: StartJobRequest): Promise<StartJobResult> {
  const { notifier, store, queue, logger, clock, metrics } = deps;
  // Before anything is read, stored, posted or sent: an instruction holding a credential starts nothing
  // (the text is not logged either). Quoted context is other people's words: its credentials are cut out.
  const secret = findSecret(unchecked.prompt);
  if (secret) {
    logger.info(
      { channelId: unchecked.channelId, origin: unchecked.origin, kind: secret.kind },
      'instruction holds a credential; nothing started',
    );
    return { ok: false, stage: 'secret', kind: secret.kind };
  }
  const request =
    unchecked.context === undefined ? unchecked : { ...unchecked, context: scrubSecrets(unchecked.context) };
  // The channel decides the project once; the record keeps it for polls, follow-ups and status.
  const projectId = deps.projects.projectFor(request.projectChannelId ?? request.channelId);
  const startId = request.handover?.id ?? randomUUID();
  const card = {
    cardKey: `card:${request.channelId}:${startId}`,
    channelId: request.channelId,
    threadTs: request.threadTs,
    requesterId: request.requesterId,
    prompt: request.prompt,
    ...(request.evidenceRef === undefined ? {} : { evidenceRef: request.evidenceRef }),
    projectId,
    ...(request.origin === 'app_home' ? { mayJoin: false } : {}),
    origin: request.origin,
    teamId: request.teamId,
  };
  try {
    // A cheap read first: with the state store down the job could be created but never followed, so
    // nothing is posted or created and the user is told to retry.
    await store.findJobByThread(request.channelId, request.threadTs ?? cardlessProbe);
  } catch (error) {
    logger.warn({ channelId: request.channelId, error: describeError(error) }, 'state store unavailable');
    metrics?.jobStarted('state_unavailable');
    return { ok: false, stage: 'state', error };
  }
  let cardTs: string;
  try {
    cardTs = request.handover?.cardTs ?? (await notifier.postStartingCard(card));
  } catch (error) {
    if (await handOverIfStopping(deps, request, startId, { error }))
      return { ok: false, stage: 'handed_over' };
    metrics?.jobStarted('card_failed');
    return { ok: false, stage: 'card', error };
  }
  if (await handOverIfStopping(deps, request, startId, { ts: cardTs }))
    return { ok: false, stage: 'handed_over' };
  try {
    // Taken over: gone from the hand-over before the create, so the job is created at most once.
    if (request.handover) await deps.handovers?.done(request.handover.id);
  } catch (error) {
    return { ok: false, stage: 'state', error };
  }

  let job: AgentJob;
  let taken: Pick<HourlyQuota, 'refund'> | undefined;
  try {
    const slot = await takeJobBudget(deps, projectId, request.requesterId);
    if (!slot.ok) throw slot.error;
    taken = slot.refund;
    job = await deps
      .apiFor(projectId)
      .createJob(request.context ? `${request.prompt}\n\n${request.context}` : request.prompt);
  } catch (error) {
    if (taken) await refundIfNeverSent({ quota: taken, logger }, error);
    logger.warn(
      { channelId: request.channelId, projectId, error: describeError(error) },
      'could not create agent job',
    );
    await oweOrLog(logger, { cardTs }, notifier.markCardFailed({ ...card, cardTs, error }));
    metrics?.jobStarted('create_failed');
    return { ok: false, stage: 'create', error };
  }

  const now = clock.now();
  const record = newJobRecord(
    {
      jobId: job.id,
      teamId: request.teamId,
      channelId: request.channelId,
      threadTs: request.threadTs ?? cardTs,
      cardTs,
      ...(request.sourceTs === undefined ? {} : { sourceTs: request.sourceTs }),
      requesterId: request.requesterId,
      prompt: request.prompt,
      origin: request.origin,
      projectId,
      ...(request.evidenceRef === undefined ? {} : { evidenceRef: request.evidenceRef }),
      status: job.status,
      repository: job.repository,
      ref: job.ref,
      model: job.model,
      prLink: job.prLink,
    },
    now,
  );
  logger.info(
    { jobId: job.id, channelId: record.channelId, origin: record.origin, projectId },
    'agent job created',
  );
  try {
    await store.saveJob(record);
    await store.linkThread(record.channelId, record.threadTs, record.jobId);
  } catch (error) {
    // The job runs upstream but cannot be followed: say so on the card rather than pretend.
    logger.error(
      { jobId: job.id, error: describeError(error) },
      'job created but its state could not be saved',
    );
    await oweOrLog(
      logger,
      { jobId: job.id },
      notifier.markCardFailed({ ...card, cardTs, error: new UntrackedJobError(job.id, error) }),
    );
    metrics?.jobStarted('create_failed');
    return { ok: false, stage: 'create', error };
  }
  metrics?.jobStarted('started');
  await oweOrLog(logger, { jobId: record.jobId }, notifier.updateCard(record, now));
  await queue.schedule(record.jobId, deps.poll.minMs);
  return { ok: true, record };
}
