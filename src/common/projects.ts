import { z } from 'zod';
import { AppError } from './errors.js';
import { findSecret, scrubSecrets } from './secret-shapes.js';

/** DOCS_CHANNEL_PROJECTS could not be read; the message names the entry and what a valid one looks like. */
export class ChannelProjectsError extends AppError<'invalid_channel_projects'> {
  constructor(message: string) {
    // Messages quote the entry: a key typed in the wrong place is never quoted with it.
    super('invalid_channel_projects', scrubSecrets(message));
  }
}

/** Slack conversation ids: public/private channels (C…, G…) and DMs (D…), upper-case letters and digits. */
const CHANNEL_ID = /^[CGD][A-Z0-9]{2,}$/;
/** Project ids as the docs platform names them in URLs: no spaces, commas, `=` or `:`. */
const PROJECT_ID = /^[A-Za-z0-9_.-]{1,128}$/;
/** An admin API key as the dashboard issues it. */
const API_KEY = /^svc_[A-Za-z0-9_-]{8,200}$/;

/** DOCS_CHANNEL_PROJECTS read: channel → project, and the projects that have their own admin key. */
export interface ChannelProjects {
  channels: ReadonlyMap<string, string>;
  /** project → its own admin key (`CHANNEL=project:svc_…`); others use DOCS_API_KEY. */
  keys: ReadonlyMap<string, string>;
}

/**
 * `"C0123ABC=proj_a,C0456DEF=proj_b:svc_…"` → channel → project. Blank input is an empty map (every channel
 * uses DOCS_PROJECT_ID). A channel listed twice is an error even with the same project: it is a typo either
 * way. Without `:svc_…` a project is called with DOCS_API_KEY.
 */
export function parseChannelProjects(text: string | undefined): Map<string, string> {
  return new Map(parseChannelProjectEntries(text).channels);
}

/** The whole of DOCS_CHANNEL_PROJECTS: channels and per-project keys. A project given two keys is an error. */
export function parseChannelProjectEntries(text: string | undefined): ChannelProjects {
  const map = new Map<string, string>();
  const keys = new Map<string, string>();
  if (!text || text.trim() === '') return { channels: map, keys };
  const entries = text.split(',').map((entry) => entry.trim());
  entries.forEach((entry, index) => {
    const where = `DOCS_CHANNEL_PROJECTS entry ${index + 1}`;
    if (entry === '') throw new ChannelProjectsError(`${where} is empty (a stray comma?)`);
    const parts = entry.split('=');
    if (parts.length !== 2)
      throw new ChannelProjectsError(`${where} "${entry}" must look like CHANNEL_ID=project_id`);
    const channelId = parts[0]!.trim();
    const [project = '', key, ...extra] = parts[1]!.split(':');
    const projectId = project.trim();
    const apiKey = key?.trim();
    if (!CHANNEL_ID.test(channelId))
      throw new ChannelProjectsError(
        `${where}: "${channelId}" is not a Slack channel id (like C0123ABC; not a #name)`,
      );
    if (findSecret(projectId) || findSecret(channelId))
      throw new ChannelProjectsError(
        `${where}: a key is where the channel or project id goes; write CHANNEL_ID=project_id:svc_…`,
      );
    if (!PROJECT_ID.test(projectId))
      throw new ChannelProjectsError(
        `${where}: "${projectId}" is not a project id (letters, digits, _ . - only)`,
      );
    // Never echo a key back: the message names the entry by its channel and project only.
    if (extra.length > 0 || (apiKey !== undefined && !API_KEY.test(apiKey)))
      throw new ChannelProjectsError(
        `${where} (${channelId}=${projectId}): the key after ":" must be an admin API key (svc_…)`,
      );
    if (map.has(channelId))
      throw new ChannelProjectsError(`${where}: channel ${channelId} is listed more than once`);
    if (apiKey && keys.has(projectId) && keys.get(projectId) !== apiKey)
      throw new ChannelProjectsError(`${where}: project ${projectId} is given two different keys`);
    map.set(channelId, projectId);
    if (apiKey) keys.set(projectId, apiKey);
  });
  return { channels: map, keys };
}

/** The DOCS_CHANNEL_PROJECTS variable for the config schema: a map, or the parse error as its problem. */
export const channelProjectsSchema = z
  .string()
  .optional()
  .transform((text, ctx) => {
    try {
      return parseChannelProjectEntries(text);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // The config error prefixes the variable's name already.
      ctx.addIssue({ code: 'custom', message: message.replace(/^DOCS_CHANNEL_PROJECTS /, '') });
      return z.NEVER;
    }
  });

/** Which docs project a channel acts on: its own mapping, else the default (DOCS_PROJECT_ID). */
/**
 * No channel mapped to a project of its own (most workspaces): the process's one empty map, never written,
 * since each new Map has its hash table (issue 43 §2: per resident tenant, twice).
 */
export const NO_CHANNEL_PROJECTS: ReadonlyMap<string, string> = new Map();

const ownCopy = (byChannel: ReadonlyMap<string, string>) =>
  byChannel.size > 0 ? new Map(byChannel) : NO_CHANNEL_PROJECTS;

export class ProjectDirectory {
  private defaultProject: string;
  private byChannel: ReadonlyMap<string, string>;

  constructor(defaultProjectId: string, byChannel: ReadonlyMap<string, string> = NO_CHANNEL_PROJECTS) {
    this.defaultProject = checkedDefault(defaultProjectId);
    this.byChannel = ownCopy(byChannel);
  }

  get defaultProjectId(): string {
    return this.defaultProject;
  }

  /** OAuth mode: a tenant connected or disconnected a project in Slack; the running bot follows at once. */
  replace(defaultProjectId: string, byChannel: ReadonlyMap<string, string>): void {
    this.defaultProject = checkedDefault(defaultProjectId);
    this.byChannel = ownCopy(byChannel);
  }

  static fromText(defaultProjectId: string, text: string | undefined): ProjectDirectory {
    return new ProjectDirectory(defaultProjectId, parseChannelProjects(text));
  }

  projectFor(channelId: string | null | undefined): string {
    return (channelId && this.byChannel.get(channelId)) || this.defaultProjectId;
  }

  /** Whether DOCS_CHANNEL_PROJECTS lists the channel (even with the default project). */
  isMapped(channelId: string | null | undefined): boolean {
    return !!channelId && this.byChannel.has(channelId);
  }

  /** Every configured project once: the default first, then the mapped ones in the order given. */
  all(): string[] {
    return [...new Set([this.defaultProjectId, ...this.byChannel.values()])];
  }

  /** More than one project: cards and reports then name the project they act on. */
  get isMulti(): boolean {
    return this.all().length > 1;
  }
}

function checkedDefault(projectId: string): string {
  if (!PROJECT_ID.test(projectId))
    throw new ChannelProjectsError(`DOCS_PROJECT_ID "${projectId}" is not a project id`);
  return projectId;
}
