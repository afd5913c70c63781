import { DocsApiError, outcomeUnknown } from '../../common/docs-api-error.js';
import { AppError } from '../../common/errors.js';
import { UserShareUsedUp } from '../../jobs/use-cases/job-budget.js';
import { untrustedMrkdwn } from '../markup.js';
import { mrkdwnLink, slackTime } from './format.js';
import { oneLine } from './limits.js';

/**
 * What a user reads when something fails: what happened and what to do. Chosen by error code only,
 * so no internal detail (and never a key or token) reaches Slack.
 */
/** The hourly budgets as configured (AGENT_JOBS_PER_HOUR, ANALYTICS_HOURLY_BUDGET), for the texts that name them. */
export interface HourlyLimits {
  jobsPerHour?: number;
  analyticsPerHour?: number;
}

/** OAuth mode, before a workspace connected a docs project: nothing was sent anywhere. */
export const NOT_CONNECTED_TEXT =
  'No docs project is connected in this workspace yet, so nothing happened. A workspace admin (or whoever installed docs-agent) must run `/docs-agent connect` first.';

/** OAuth mode: the key a manager connected in Slack was refused; a manager reconnects it. */
/** No HTTP status in people's view (issue 46 §3): `_status` stays for the callers' logs. */
export function reconnectKeyText(_status: number | undefined, action: string): string {
  return `The docs platform refused the admin key connected for this project, so I could not ${action}. Ask a docs-agent manager here (an admin, an owner or whoever installed it) to reconnect the project with a valid admin key: \`/docs-agent connect\`, or *Connect a project* in docs-agent's Home.`;
}

/** A job's page on the docs platform (DOCS_JOB_URL_PATTERN), for the texts that send people there. */
export type JobLink = (jobId: string) => string | undefined;

/** Where to look for agent jobs when no link can be given. */
export const DASHBOARD_WORDS = "the agent jobs list of your docs platform's dashboard";

export function describeDocsFailure(
  error: unknown,
  now: number,
  action = 'start the job',
  limits: HourlyLimits = {},
  jobLink?: JobLink,
): string {
  if (error instanceof DocsApiError) {
    if (error.keyConnectedInSlack) return reconnectKeyText(error.status, action);
    switch (error.code) {
      case 'unauthorized':
        return `The docs platform rejected my API key, so I could not ${action}. Ask a workspace admin to give docs-agent a valid docs admin key with write access.`;
      case 'forbidden':
        return `The docs platform refused my API key, so I could not ${action}. Ask a workspace admin to check that the key has write scope and that its IP allowlist includes docs-agent.`;
      case 'rate_limited':
        return `The project's hourly limit for agent jobs${limits.jobsPerHour ? ` (${perHour(limits.jobsPerHour, 'job')})` : ''} is reached, so I could not ${action}. ${retryHint(error.retryAfterMs, now)}`;
      case 'invalid_request':
        return `The docs platform refused the instruction${error.apiMessage ? `: “${untrustedMrkdwn(oneLine(error.apiMessage, 300))}”` : ''}. Rephrase it and try again.`;
      case 'not_found':
        return `The docs platform does not know this project or job, so I could not ${action}. Ask a workspace admin to check which docs project docs-agent is set up for.`;
      case 'unavailable':
        // A create that got no answer may still have started the job: a blind retry would run it twice.
        if (action === 'start the job' && outcomeUnknown(error))
          return `The docs platform did not answer in time, so I can't tell whether the job started: it may have started anyway. Before trying again, wait a few minutes for a pull request and look in ${DASHBOARD_WORDS}, so it doesn't run twice.`;
        return `The docs platform is down or did not answer in time, so I could not ${action}. Try again in a few minutes.`;
      case 'bad_response':
        return `The docs platform gave an answer I could not read, so I could not confirm the request. Look in ${DASHBOARD_WORDS} before trying again.`;
      case 'not_connected':
        return NOT_CONNECTED_TEXT;
    }
  }
  if (error instanceof UserShareUsedUp) {
    const of = limits.jobsPerHour ? ` of ${perHour(limits.jobsPerHour, 'job')}` : '';
    return `You've used your share of this project's agent jobs this hour (${error.share}${of}), so I could not ${action}; the rest is kept for your teammates. ${retryHint(error.retryAfterMs, now)}`;
  }
  if (error instanceof AppError && error.code === 'state_unavailable') {
    const jobId = (error as { jobId?: unknown }).jobId;
    if (typeof jobId !== 'string')
      return `I can't reach my storage right now, so I could not ${action}. Try again in a minute.`;
    // No job id in the text (issue 46): a link to its page when there is one, else where to look.
    const url = jobLink?.(jobId);
    const where = url
      ? mrkdwnLink(url, 'Open it in the docs dashboard')
      : `Look for it in ${DASHBOARD_WORDS}`;
    return `The job started, but I could not save it, so I can't follow it or post its pull request here. ${where}; don't start it again.`;
  }
  return `Something went wrong and I could not ${action}. Try again; if it keeps happening, ask an admin to check the bot's logs.`;
}

/** `1 job per hour`, `1,000 requests per hour`. */
export function perHour(count: number, noun: string): string {
  return `${count.toLocaleString('en-US')} ${noun}${count === 1 ? '' : 's'} per hour`;
}

export function retryHint(retryAfterMs: number | undefined, now: number): string {
  if (retryAfterMs === undefined) return 'Try again later this hour.';
  const minutes = Math.max(1, Math.ceil(retryAfterMs / 60_000));
  return `Try again after ${slackTime(now + retryAfterMs)} (in about ${minutes} min).`;
}

/** Why the bot could not post in a channel, and what the user can do about it. */
export function describeSlackDeliveryFailure(code: string | undefined): string {
  switch (code) {
    case 'not_in_channel':
    case 'channel_not_found':
      return "I'm not a member of this conversation, so I can't post the job here. Invite me with `/invite @docs-agent` and try again.";
    case 'is_archived':
      return 'This channel is archived, so I cannot post in it.';
    case 'restricted_action':
    case 'cant_post_message':
      return "This channel doesn't allow me to post. Ask a channel manager to allow apps, or use another channel.";
    case 'msg_blocks_too_long':
    case 'msg_too_long':
    case 'invalid_blocks':
    case 'invalid_blocks_format':
    case 'too_many_blocks':
      // The same message would be refused again: never suggest a retry that fails forever.
      return "Slack refused my message as too long or malformed, so the job was not started; trying again will not help. Shorten the instruction, and if it keeps happening ask a workspace admin to check docs-agent's logs.";
    case 'shutting_down':
      return 'I was restarting before I could post the job here, so it was not started. Try again in a minute.';
    case 'card_not_confirmed':
      return 'Slack did not confirm my message in time, so the job was not started. Try again in a moment.';
    case 'slack_queue_full':
      return "Too many of my messages are already waiting for Slack's rate limit here, so the job was not started. Try again in a few minutes.";
    default:
      return 'Slack refused my message, so the job was not started. Try again in a moment.';
  }
}
