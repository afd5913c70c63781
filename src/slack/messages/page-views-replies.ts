import { DocsApiError } from '../../common/docs-api-error.js';
import { AppError } from '../../common/errors.js';
import { escapeMrkdwn, untrustedMrkdwn } from '../markup.js';
import {
  describeSlackDeliveryFailure,
  type HourlyLimits,
  NOT_CONNECTED_TEXT,
  perHour,
  reconnectKeyText,
  retryHint,
} from './failures.js';
import { oneLine } from './limits.js';

/** A token rendered inside backticks: escaped, one line, and unable to close the code span. */
export function codeToken(token: string): string {
  return `\`${escapeMrkdwn(oneLine(token, 80)).replace(/`/g, 'ˋ')}\``;
}

export function invalidPageViewsCommandMessage(command: string, token: string, problem: string): string {
  // The grammar's problems name placeholders such as `<weekday>`: escaped, or Slack reads them as links.
  const said = problem.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return `I couldn't read ${codeToken(token)}: it ${said}. Nothing was fetched. See \`${command} help\` for the grammar.`;
}

/** What went wrong with a report, and what to do. Chosen by error code; never leaks internals. */
export function describePageViewsFailure(error: unknown, now: number, limits: HourlyLimits = {}): string {
  if (error instanceof AppError && error.code === 'analytics_budget_exhausted') {
    const retryAfterMs = (error as { retryAfterMs?: number }).retryAfterMs;
    const budget = limits.analyticsPerHour ? `${perHour(limits.analyticsPerHour, 'request')}, ` : '';
    return `The organisation's analytics budget (${budget}shared with every analytics tool) would run out, so I didn't fetch anything (reports fetched in the last few minutes are still available). ${retryHint(retryAfterMs, now)}`;
  }
  if (error instanceof DocsApiError) {
    switch (error.code) {
      case 'invalid_request':
        return `The docs platform refused the request${error.apiMessage ? `: “${untrustedMrkdwn(oneLine(error.apiMessage, 300))}”` : ''}. Check the range (dates as \`YYYY-MM-DD\`) and try again.`;
      case 'rate_limited':
        return `The docs platform's analytics limit for the organisation${limits.analyticsPerHour ? ` (${perHour(limits.analyticsPerHour, 'request')})` : ''} is reached, possibly by other tools. ${retryHint(error.retryAfterMs, now)}`;
      case 'unavailable':
        return 'The docs platform failed or did not answer in time, so I have no report. Try again in a few minutes.';
      case 'unauthorized':
      case 'forbidden':
        if (error.keyConnectedInSlack) return reconnectKeyText(error.status, 'make the report');
        return 'The docs platform rejected my API key, so I have no report. Ask a workspace admin to give docs-agent a valid docs admin key.';
      case 'not_found':
        return "The docs platform doesn't know this project, so I have no report. Ask a workspace admin to check which docs project docs-agent is set up for.";
      case 'bad_response':
        return 'The docs platform sent analytics I could not read. Try again later; if it persists, ask an admin to check the logs.';
      case 'not_connected':
        return NOT_CONNECTED_TEXT;
    }
  }
  if (error instanceof AppError && error.code === 'state_unavailable') {
    return "I can't reach my storage right now. Try again in a minute.";
  }
  return "Something went wrong and I couldn't build the report. Try again; if it keeps happening, ask an admin to check the bot's logs.";
}

export function describeUploadFailure(code: string | undefined): string {
  if (code === 'not_in_channel' || code === 'channel_not_found') {
    return "I couldn't upload the CSV: I'm not a member of this conversation. Invite me with `/invite @docs-agent` and try again.";
  }
  return "I couldn't upload the CSV: Slack refused it. Try again in a moment.";
}

/** Slack refusals that depend on the message itself: the same message is refused every time. */
const REFUSED_AS_MESSAGE = new Set([
  'msg_blocks_too_long',
  'msg_too_long',
  'invalid_blocks',
  'invalid_blocks_format',
  'too_many_blocks',
]);

/** Why "Post to channel" did not post: about the report, never "the job" (the job texts' wording). */
export function describePostFailure(code: string | undefined): string {
  if (code && REFUSED_AS_MESSAGE.has(code))
    return `Slack refused the report as too long or malformed, so it was not posted; posting it again will not help. Ask for fewer pages (\`top 10\`) or add \`csv\` to get every page as a file.`;
  switch (code) {
    case 'not_in_channel':
    case 'channel_not_found':
      return "I'm not a member of this conversation, so I can't post the report here. Invite me with `/invite @docs-agent` and try again.";
    case 'shutting_down':
      return 'I was restarting before I could post the report, so it was not posted. Try again in a minute.';
  }
  return describeSlackDeliveryFailure(code).replace('the job was not started', 'the report was not posted');
}
