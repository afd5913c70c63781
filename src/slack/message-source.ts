import { AppError } from '../common/errors.js';
import { slackToPlainText, type UserNameResolver } from './markup.js';

/** A message as conversations.history/replies return it, reduced to what a job is made from. */
export interface SourceMessage {
  ts: string;
  thread_ts?: string;
  text?: string;
  blocks?: unknown[];
  files?: Array<{ name?: string; title?: string; permalink?: string }>;
  subtype?: string;
  /** The author: a person (`user`), or a bot/app/webhook (`bot_id`, `app_id`, subtype bot_message). */
  user?: string;
  bot_id?: string;
  app_id?: string;
  /** The author's team: `user_team` on Slack Connect messages, else `team`. */
  team?: string;
  user_team?: string;
}

/**
 * Whether a message was written by someone other than a person of this workspace: a bot, an app, a webhook,
 * or a user of another organisation. Such text is never run as an instruction unreviewed.
 */
export function isForeignAuthor(message: SourceMessage, homeTeamId: string | undefined): boolean {
  if (message.bot_id || message.app_id || message.subtype === 'bot_message' || !message.user) return true;
  const team = message.user_team ?? message.team;
  return team !== undefined && homeTeamId !== undefined && team !== homeTeamId;
}

/** The instruction a reaction sends, labelled with who wrote it and who sent it, as the agent receives it. */
export function labelledMessagePrompt(instruction: string, authorId: string, senderId: string): string {
  const by = authorId === senderId ? `@${authorId}` : `@${authorId}, sent to the docs agent by @${senderId}`;
  return `Slack message by ${by}:\n\n${instruction}`;
}

export interface MessageJobSource {
  /** The job's instruction, in plain text as follow-ups are converted. */
  instruction: string;
  /** Where the job card goes (and which thread becomes the job's): the message's thread, else the message. */
  threadTs: string;
}

/** The message has nothing to turn into an instruction (only an image, say): the user is told so. */
export class EmptySourceMessageError extends AppError<'empty_source_message'> {
  constructor() {
    super('empty_source_message', 'That message has no text to send to the docs agent.');
  }
}

/** Files are named, never downloaded: the agent cannot read Slack-hosted files, a person can follow the link. */
const MAX_FILES_LISTED = 10;

/**
 * Turns a fetched Slack message into a job: its text as plain text (falling back to the text of its
 * blocks when `text` is empty, as for some app messages), plus the names of attached files.
 */
export function jobFromMessage(
  message: SourceMessage,
  resolveUser: UserNameResolver = () => undefined,
): MessageJobSource {
  const markup = message.text?.trim() ? message.text : blocksText(message.blocks);
  const text = slackToPlainText(markup, resolveUser).trim();
  const files = (message.files ?? []).slice(0, MAX_FILES_LISTED).map((file) => {
    const name = file.title || file.name || 'file';
    return file.permalink ? `- ${name} (${file.permalink})` : `- ${name}`;
  });
  const more = (message.files?.length ?? 0) - files.length;
  if (more > 0) files.push(`- and ${more} more`);
  const parts = [text, files.length > 0 ? `Attached files:\n${files.join('\n')}` : ''].filter(Boolean);
  if (parts.length === 0) throw new EmptySourceMessageError();
  return { instruction: parts.join('\n\n'), threadTs: message.thread_ts || message.ts };
}

/**
 * The once-only key for a reaction: per message, not per reacting user or event, so the same message
 * reacted twice (by anyone, or delivered twice by Slack) starts one job.
 */
export function reactionDedupeKey(teamId: string | null | undefined, channelId: string, ts: string): string {
  return `dedupe:reaction:${teamId || '-'}:${channelId}:${ts}`;
}

/** Text of section/header/context blocks and rich_text elements, one line per block or rich text section. */
function blocksText(blocks: unknown[] | undefined): string {
  if (!Array.isArray(blocks)) return '';
  return blocks
    .map(lineOf)
    .filter((line) => line.trim() !== '')
    .join('\n');
}

function lineOf(value: unknown): string {
  if (Array.isArray(value)) return value.map(lineOf).join('');
  if (typeof value !== 'object' || value === null) return '';
  const node = value as Record<string, unknown>;
  // Inline rich_text elements are rendered back to Slack markup, so the one converter handles them all.
  switch (node.type) {
    case 'text':
    case 'plain_text':
    case 'mrkdwn':
      return typeof node.text === 'string' ? node.text : '';
    case 'link':
      return typeof node.url === 'string' ? `<${node.url}${node.text ? `|${String(node.text)}` : ''}>` : '';
    case 'user':
      return `<@${String(node.user_id ?? '')}>`;
    case 'channel':
      return `<#${String(node.channel_id ?? '')}>`;
    case 'emoji':
      return `:${String(node.name ?? '')}:`;
    case 'rich_text':
      return Array.isArray(node.elements) ? node.elements.map(lineOf).join('\n') : '';
    case 'section':
      return [lineOf(node.text), ...(Array.isArray(node.fields) ? node.fields.map(lineOf) : [])]
        .filter(Boolean)
        .join('\n');
    case 'header':
      return lineOf(node.text);
    case 'context':
      return Array.isArray(node.elements) ? node.elements.map(lineOf).filter(Boolean).join(' ') : '';
    default:
      // rich_text_section / _quote / _preformatted / _list: their elements in order.
      return Array.isArray(node.elements)
        ? node.elements.map(lineOf).join(node.type === 'rich_text_list' ? '\n' : '')
        : '';
  }
}
