import { createHmac, randomBytes } from 'node:crypto';

/** Signs a request body exactly as Slack does: v0=HMAC-SHA256(secret, "v0:{timestamp}:{body}"). */
export function slackSignature(secret: string, timestamp: number, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

export function signedHeaders(secret: string, body: string, timestamp = Math.floor(Date.now() / 1000)) {
  return {
    'x-slack-request-timestamp': String(timestamp),
    'x-slack-signature': slackSignature(secret, timestamp, body),
  };
}

export interface SlashCommandFields {
  command?: string;
  text: string;
  user_id?: string;
  user_name?: string;
  channel_id?: string;
  channel_name?: string;
  team_id?: string;
  /** Enterprise Grid: the org, and whether the app is installed org-wide. */
  enterprise_id?: string;
  is_enterprise_install?: 'true' | 'false';
  response_url: string;
  trigger_id?: string;
}

/** A slash command payload as Slack sends it: form-encoded. */
export function slashCommandBody(fields: SlashCommandFields): string {
  return new URLSearchParams({
    token: 'deprecated-verification-token',
    team_id: fields.team_id ?? 'T0TEAM',
    team_domain: 'acme',
    channel_id: fields.channel_id ?? 'C0DOCS',
    channel_name: fields.channel_name ?? 'docs',
    user_id: fields.user_id ?? 'U0ALICE',
    user_name: fields.user_name ?? 'alice',
    command: fields.command ?? '/docs-agent',
    text: fields.text,
    api_app_id: 'A0DOCSAGENT',
    ...(fields.enterprise_id ? { enterprise_id: fields.enterprise_id } : {}),
    is_enterprise_install: fields.is_enterprise_install ?? 'false',
    response_url: fields.response_url,
    // Slack mints a new trigger_id for every invocation: two commands are never the same signed body.
    trigger_id: fields.trigger_id ?? `${Date.now()}.5678.${randomBytes(8).toString('hex')}`,
  }).toString();
}

export async function postSigned(
  url: string,
  body: string,
  secret: string,
  {
    contentType = 'application/x-www-form-urlencoded',
    headers = {} as Record<string, string>,
    timestamp,
  }: {
    contentType?: string;
    headers?: Record<string, string>;
    timestamp?: number;
  } = {},
): Promise<{ status: number; body: string; ms: number }> {
  const started = performance.now();
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': contentType, ...signedHeaders(secret, body, timestamp), ...headers },
    body,
  });
  const text = await response.text();
  return { status: response.status, body: text, ms: performance.now() - started };
}
