import { randomBytes } from 'node:crypto';
import { postSigned } from './slack-signing.js';

type Json = Record<string, unknown>;

export const TEAM_ID = 'T0TEAM';
export const BOT_USER_ID = 'U0DOCSBOT';

let tsCounter = 0;

/** A fresh message ts, unique within the test run and ordered after earlier ones. */
export function nextMessageTs(): string {
  tsCounter += 1;
  return `${Math.floor(Date.now() / 1000) - 100}.${String(500_000 + tsCounter).padStart(6, '0')}`;
}

export interface MessageFields {
  type?: 'message' | 'app_mention';
  channel?: string;
  channel_type?: string;
  user?: string;
  text: string;
  ts?: string;
  thread_ts?: string;
  bot_id?: string;
  subtype?: string;
  [key: string]: unknown;
}

/** A Slack message event (`message` or `app_mention`), with defaults for a person in #docs. */
export function messageEvent(fields: MessageFields): Record<string, unknown> {
  const type = fields.type ?? 'message';
  const ts = fields.ts ?? nextMessageTs();
  return {
    type,
    channel: 'C0DOCS',
    ...(type === 'message' ? { channel_type: 'channel' } : {}),
    user: 'U0ALICE',
    team: TEAM_ID,
    ...fields,
    ts,
    event_ts: ts,
  };
}

/**
 * The Events API envelope Slack posts to the request URL, for `teamId`'s install (OAuth mode: each tenant's
 * own). A new event_id each call unless given.
 */
export function eventEnvelope(
  event: Record<string, unknown>,
  eventId?: string,
  teamId = TEAM_ID,
): Record<string, unknown> {
  return {
    token: 'deprecated-verification-token',
    team_id: teamId,
    api_app_id: 'A0DOCSAGENT',
    event,
    type: 'event_callback',
    event_id: eventId ?? `Ev${randomBytes(6).toString('hex').toUpperCase()}`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [
      {
        enterprise_id: null,
        team_id: teamId,
        user_id: BOT_USER_ID,
        is_bot: true,
        is_enterprise_install: false,
      },
    ],
    is_ext_shared_channel: false,
    event_context: `4-${randomBytes(8).toString('hex')}`,
  };
}

/** Headers of a Slack retry of an event delivery. */
export function retryHeaders(num: number, reason = 'http_timeout'): Record<string, string> {
  return { 'x-slack-retry-num': String(num), 'x-slack-retry-reason': reason };
}

/** An event's own `event_ts`: now, to the microsecond. */
function eventTs(): string {
  return `${(Date.now() / 1000).toFixed(6)}`;
}

export interface ReactionFields {
  userId?: string;
  reaction?: string;
  channelId?: string;
  /** The message reacted to. */
  ts: string;
  /** Its author (absent for some messages, e.g. from integrations). */
  itemUser?: string;
  eventId?: string;
}

/** The Events API envelope of a `reaction_added` on a message. Pass the same eventId for a redelivery. */
export function reactionAddedEnvelope(fields: ReactionFields): Json {
  return eventEnvelope(
    {
      type: 'reaction_added',
      user: fields.userId ?? 'U0ALICE',
      reaction: fields.reaction ?? 'memo',
      ...(fields.itemUser === undefined ? {} : { item_user: fields.itemUser }),
      item: { type: 'message', channel: fields.channelId ?? 'C0DOCS', ts: fields.ts },
      event_ts: eventTs(),
    },
    fields.eventId,
  );
}

/** `app_home_opened` for the Home tab; `view` is present once the app has published one for the user. */
export function appHomeOpenedEnvelope(fields: { userId?: string; channelId?: string; view?: Json }): Json {
  return eventEnvelope({
    type: 'app_home_opened',
    user: fields.userId ?? 'U0ALICE',
    channel: fields.channelId ?? 'D0ALICE',
    tab: 'home',
    event_ts: eventTs(),
    ...(fields.view ? { view: fields.view } : {}),
  });
}

/** Posts an Events API envelope to the app, signed, as JSON. */
export function postEvent(url: string, envelope: Json, secret: string, headers: Record<string, string> = {}) {
  return postSigned(url, JSON.stringify(envelope), secret, { contentType: 'application/json', headers });
}
