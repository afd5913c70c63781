import { z } from 'zod';
import { AppError } from './errors.js';

/** DOCS_CHANNEL_PROJECTS could not be read; the message names the entry and what a valid one looks like. */
export class ChannelProjectsError extends AppError<'invalid_channel_projects'> {
  constructor(message: string) {
    super('invalid_channel_projects', message);
  }
}

/** Slack conversation ids: public/private channels (C…, G…) and DMs (D…), upper-case letters and digits. */
const CHANNEL_ID = /^[CGD][A-Z0-9]{2,}$/;
/** Project ids as the docs platform names them in URLs: no spaces, commas or `=`. */
const PROJECT_ID = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * `"C0123ABC=proj_a,C0456DEF=proj_b"` → channel → project. Blank input is an empty map (every channel uses
 * DOCS_PROJECT_ID). A channel listed twice is an error even with the same project: it is a typo either way.
 */
export function parseChannelProjects(text: string | undefined): Map<string, string> {
  const map = new Map<string, string>();
  if (!text || text.trim() === '') return map;
  const entries = text.split(',').map((entry) => entry.trim());
  entries.forEach((entry, index) => {
    const where = `DOCS_CHANNEL_PROJECTS entry ${index + 1}`;
    if (entry === '') throw new ChannelProjectsError(`${where} is empty (a stray comma?)`);
    const parts = entry.split('=');
    if (parts.length !== 2)
      throw new ChannelProjectsError(`${where} "${entry}" must look like CHANNEL_ID=project_id`);
    const channelId = parts[0]!.trim();
    const projectId = parts[1]!.trim();
    if (!CHANNEL_ID.test(channelId))
      throw new ChannelProjectsError(
        `${where}: "${channelId}" is not a Slack channel id (like C0123ABC; not a #name)`,
      );
    if (!PROJECT_ID.test(projectId))
      throw new ChannelProjectsError(
        `${where}: "${projectId}" is not a project id (letters, digits, _ . - only)`,
      );
    if (map.has(channelId))
      throw new ChannelProjectsError(`${where}: channel ${channelId} is listed more than once`);
    map.set(channelId, projectId);
  });
  return map;
}

/** The DOCS_CHANNEL_PROJECTS variable for the config schema: a map, or the parse error as its problem. */
export const channelProjectsSchema = z
  .string()
  .optional()
  .transform((text, ctx) => {
    try {
      return parseChannelProjects(text) as ReadonlyMap<string, string>;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // The config error prefixes the variable's name already.
      ctx.addIssue({ code: 'custom', message: message.replace(/^DOCS_CHANNEL_PROJECTS /, '') });
      return z.NEVER;
    }
  });

/** Which docs project a channel acts on: its own mapping, else the default (DOCS_PROJECT_ID). */
export class ProjectDirectory {
  private readonly byChannel: ReadonlyMap<string, string>;

  constructor(
    readonly defaultProjectId: string,
    byChannel: ReadonlyMap<string, string> = new Map(),
  ) {
    if (!PROJECT_ID.test(defaultProjectId))
      throw new ChannelProjectsError(`DOCS_PROJECT_ID "${defaultProjectId}" is not a project id`);
    this.byChannel = new Map(byChannel);
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
