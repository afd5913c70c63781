import type { BotRequests } from './bot-requests.js';
import { triggerId, user } from './bot-requests.js';
import { DEMO_CHANNEL, DEMO_DM, DEMO_TEAM, DEMO_USER, type StandInSlack } from './stand-in-slack.js';

/**
 * The playground's other ways to reach the bot, each the request Slack sends: the message shortcut ("Send to
 * docs agent"), a reaction, and the AI app container (a thread opened beside #docs, a message typed in it).
 */

/** "Send to docs agent" from a message's menu: a `message_action` the bot answers by opening its form. */
export async function messageShortcut(requests: BotRequests, slack: StandInSlack, ts: string): Promise<void> {
  const message = slack.find(ts);
  if (!message || message.ephemeral) return;
  await requests.interact({
    type: 'message_action',
    callback_id: 'docs_agent_from_message',
    trigger_id: triggerId(),
    action_ts: String(Date.now() / 1000),
    team: { id: DEMO_TEAM, domain: 'acme' },
    user,
    api_app_id: 'A0DEMOAPP',
    channel: { id: message.channel, name: 'docs' },
    message: { type: 'message', user: message.user, ts: message.ts, text: message.text },
    message_ts: message.ts,
    response_url: slack.responseUrl(),
  });
}

/** The person adds a reaction (the bot's job emoji, :memo:) to a message: `reaction_added`. */
export async function addReaction(
  requests: BotRequests,
  slack: StandInSlack,
  ts: string,
  name: string,
): Promise<void> {
  const message = slack.find(ts);
  if (!message || message.ephemeral) return;
  if (!message.reactions.includes(name)) message.reactions = [...message.reactions, name];
  slack.changed();
  const event = {
    type: 'reaction_added',
    user: DEMO_USER,
    reaction: name,
    item: { type: 'message', channel: message.channel, ts: message.ts },
    item_user: message.user,
    event_ts: slack.nextTs(),
  };
  await requests.post(JSON.stringify(requests.envelope(event)), 'application/json');
}

/** The person opens the assistant beside #docs: a new thread in their DM with the app. */
export async function openAssistant(requests: BotRequests, slack: StandInSlack): Promise<void> {
  const threadTs = slack.nextTs();
  slack.assistantThread = threadTs;
  slack.assistant.thread(DEMO_DM, threadTs);
  slack.changed();
  const event = {
    type: 'assistant_thread_started',
    assistant_thread: {
      user_id: DEMO_USER,
      channel_id: DEMO_DM,
      thread_ts: threadTs,
      context: { channel_id: DEMO_CHANNEL, team_id: DEMO_TEAM, enterprise_id: null },
    },
    event_ts: slack.nextTs(),
  };
  await requests.post(JSON.stringify(requests.envelope(event)), 'application/json');
}

/** A message typed in the open assistant thread (`message.im` with the thread's ts). */
export async function assistantMessage(
  requests: BotRequests,
  slack: StandInSlack,
  text: string,
): Promise<void> {
  if (!text.trim()) return;
  if (!slack.assistantThread) await openAssistant(requests, slack);
  const threadTs = slack.assistantThread ?? '';
  const message = slack.addUserMessage(text, threadTs, DEMO_DM);
  const event = {
    type: 'message',
    channel: DEMO_DM,
    channel_type: 'im',
    user: DEMO_USER,
    team: DEMO_TEAM,
    text,
    ts: message.ts,
    event_ts: message.ts,
    thread_ts: threadTs,
  };
  await requests.post(JSON.stringify(requests.envelope(event)), 'application/json');
}
