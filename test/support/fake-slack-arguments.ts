/**
 * The required arguments of each Web API method the bot calls, as @slack/web-api's request types declare them
 * (node_modules/@slack/web-api/dist/types/request/*.d.ts), refused with the error Slack answers: `channel_not_found`
 * for a message without a channel, `no_text` for one without text, blocks or attachments, and otherwise
 * `invalid_arguments` with Slack's `[ERROR] missing required field: …` in `response_metadata.messages`.
 */

type Json = Record<string, unknown>;

/** Each entry: one argument, or alternatives of which one must be present (`['trigger_id', 'interactivity_pointer']`). */
type Requirement = string | readonly string[];

const MESSAGE_CONTENT = ['text', 'blocks', 'attachments', 'markdown_text'] as const;

export const REQUIRED_ARGUMENTS: Readonly<Record<string, readonly Requirement[]>> = {
  'auth.test': [],
  'chat.postMessage': ['channel', MESSAGE_CONTENT],
  'chat.postEphemeral': ['channel', 'user', MESSAGE_CONTENT],
  'chat.update': ['channel', 'ts', MESSAGE_CONTENT],
  'chat.delete': ['channel', 'ts'],
  'chat.startStream': ['channel', 'thread_ts'],
  'chat.appendStream': ['channel', 'ts', ['markdown_text', 'chunks']],
  'chat.stopStream': ['channel', 'ts'],
  // chat.unfurl's target (channel + ts, or unfurl_id + source) is checked by fake-slack-unfurls.ts.
  'chat.unfurl': [['unfurls', 'metadata']],
  'conversations.join': ['channel'],
  'conversations.members': ['channel'],
  'conversations.history': ['channel'],
  'conversations.replies': ['channel', 'ts'],
  'conversations.open': [['users', 'channel']],
  'users.info': ['user'],
  'reactions.add': ['name', 'channel', 'timestamp'],
  'reactions.remove': ['name', 'channel', 'timestamp'],
  'files.getUploadURLExternal': ['filename', 'length'],
  'files.completeUploadExternal': ['files'],
  'views.open': [['trigger_id', 'interactivity_pointer'], 'view'],
  'views.push': [['trigger_id', 'interactivity_pointer'], 'view'],
  'views.update': [['view_id', 'external_id'], 'view'],
  'views.publish': ['user_id', 'view'],
  'assistant.threads.setStatus': ['channel_id', 'thread_ts', 'status'],
  'assistant.threads.setSuggestedPrompts': ['channel_id', 'prompts'],
  'assistant.threads.setTitle': ['channel_id', 'thread_ts', 'title'],
  'agents.sessions.setStatus': ['channel_id', 'status'],
};

/** Methods whose missing channel and missing content Slack names itself rather than `invalid_arguments`. */
const MESSAGE_METHODS = new Set(['chat.postMessage', 'chat.postEphemeral', 'chat.update']);

/** Arguments for which '' is a value: an empty status clears the thread's or the session's status. */
const EMPTY_ALLOWED = new Set(['assistant.threads.setStatus status', 'agents.sessions.setStatus status']);

/** Absent as Slack reads a form or JSON argument: missing, null, '' or an empty list (`blocks=[]`). */
function absent(method: string, name: string, value: unknown): boolean {
  if (value === '' && EMPTY_ALLOWED.has(`${method} ${name}`)) return false;
  return (
    value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0)
  );
}

/** Slack's answer to a call missing a required argument, or undefined when every one is there. */
export function missingArgument(method: string, args: Json): Json | undefined {
  const required = REQUIRED_ARGUMENTS[method];
  if (!required) return undefined;
  for (const requirement of required) {
    const names = typeof requirement === 'string' ? [requirement] : requirement;
    if (names.some((name) => !absent(method, name, args[name]))) continue;
    if (MESSAGE_METHODS.has(method) && requirement === 'channel')
      return { ok: false, error: 'channel_not_found' };
    if (MESSAGE_METHODS.has(method) && requirement === MESSAGE_CONTENT)
      return { ok: false, error: 'no_text' };
    return {
      ok: false,
      error: 'invalid_arguments',
      response_metadata: { messages: [`[ERROR] missing required field: ${names.join(' or ')}`] },
    };
  }
  return undefined;
}

/** With FAKES_TRACE=1 the fakes print each contract refusal, to find which call of a failing test was refused. */
export function traceRefusal(method: string, answer: unknown): void {
  if (process.env.FAKES_TRACE)
    process.stderr.write(`fake-slack refused ${method}: ${JSON.stringify(answer)}\n`);
}
