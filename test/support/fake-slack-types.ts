/** The shapes the fake Slack records and the faults it can inject (test/support/fake-slack.ts). */

export interface SlackCall {
  method: string;
  args: Record<string, unknown>;
  /** Authorization header, to check the bot token is sent (and never anywhere else). */
  authorization: string | undefined;
}

export interface StoredMessage {
  channel: string;
  ts: string;
  thread_ts?: string;
  text: string;
  blocks?: unknown[];
  metadata?: { event_type: string; event_payload: Record<string, unknown> };
  user: string;
  bot_id?: string;
}

export type Fault =
  | { kind: 'error'; error: string }
  | { kind: 'status'; status: number; retryAfter?: number }
  | { kind: 'delay'; ms: number; thenSucceed: boolean }
  | { kind: 'drop' };

/** A person users.info knows by name; `tz` as Slack names it (default America/Los_Angeles), `is_bot` for apps. */
export interface FakeUser {
  name: string;
  real_name?: string;
  display_name?: string;
  is_restricted?: boolean;
  is_admin?: boolean;
  tz?: string;
  is_bot?: boolean;
}
