import type { InstallFailure } from './install-pages.js';

/** @slack/oauth's error codes (its ErrorCode enum) that the failure page tells apart. */
const MISSING_STATE = 'slack_oauth_missing_state';
const INVALID_STATE = 'slack_oauth_invalid_state';
const MISSING_CODE = 'slack_oauth_missing_code';

/** @slack/web-api's error codes: Slack answered with an error, or could not be reached. */
const PLATFORM_ERROR = 'slack_webapi_platform_error';
const UNREACHABLE = new Set([
  'slack_webapi_request_error',
  'slack_webapi_http_error',
  'slack_webapi_rate_limited_error',
]);

interface CallbackError {
  code?: string;
  data?: { error?: unknown };
}

/**
 * What went wrong in the OAuth callback, from the error @slack/oauth hands `callbackOptions.failure` and the
 * redirect's own query (Slack puts `error=access_denied` there when the user pressed Cancel).
 */
export function classifyInstallFailure(error: CallbackError, requestUrl: string | undefined): InstallFailure {
  const query = URL.canParse(requestUrl ?? '', 'http://localhost')
    ? new URL(requestUrl ?? '', 'http://localhost').searchParams
    : new URLSearchParams();
  const redirectError = query.get('error');
  if (redirectError === 'access_denied') return { kind: 'denied' };
  if (redirectError) return { kind: 'slack-refused', slackError: redirectError };
  switch (error.code) {
    case MISSING_STATE:
    case INVALID_STATE:
      return { kind: 'expired' };
    case MISSING_CODE:
      return { kind: 'incomplete' };
    case PLATFORM_ERROR:
      return { kind: 'slack-refused', slackError: String(error.data?.error ?? '') };
    default:
      return error.code && UNREACHABLE.has(error.code) ? { kind: 'slack-unreachable' } : { kind: 'unknown' };
  }
}
