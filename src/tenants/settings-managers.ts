import { describeError } from '../common/errors.js';
import { LazyMap } from '../common/lazy-collections.js';
import type { Logger } from '../common/logger.js';
import { type CacheView, ProcessLru } from '../common/process-lru.js';

/** A user's workspace role as users.info tells it (`is_admin`, `is_owner`); undefined when Slack does not know them. */
export type WorkspaceRoleLookup = (userId: string) => Promise<{ admin: boolean } | undefined>;

/** What users.info says of a person, as far as deciding whether they administer an install goes. */
export interface PersonOfSlack {
  /** Their own workspace (`team_id`). */
  teamId?: string | undefined;
  /** Their Enterprise Grid org (`enterprise_user.enterprise_id`). */
  enterpriseId?: string | undefined;
  /** A deactivated account (`deleted`). */
  deleted?: boolean | undefined;
  /** A workspace admin or owner, of their own workspace (`is_admin`, `is_owner`). */
  admin: boolean;
  /** An admin or owner of their whole org (`enterprise_user.is_admin`, `is_owner`). */
  orgAdmin?: boolean | undefined;
}

/** Where the app is installed: one workspace, or a whole org (org-wide install). */
export interface InstallPlace {
  isEnterpriseInstall: boolean;
  teamId: string | undefined;
  enterpriseId: string | undefined;
}

/**
 * Whether a person administers the install: an admin or owner of *this* workspace (of this org for an
 * org-wide install). users.info reports `is_admin` for the person's own workspace, so an admin of another
 * organisation met in a Slack Connect channel says "admin" too: their workspace (their org) must be the
 * install's. A deactivated account administers nothing.
 */
export function administersInstall(person: PersonOfSlack, place: InstallPlace): boolean {
  if (person.deleted === true) return false;
  if (place.isEnterpriseInstall)
    return (
      place.enterpriseId !== undefined &&
      person.enterpriseId === place.enterpriseId &&
      person.orgAdmin === true
    );
  return place.teamId !== undefined && person.teamId === place.teamId && person.admin;
}

export interface SettingsManagersOptions {
  /** The user who installed the app first (read each time: an admin's re-install may take over). */
  installerUserId(): string | undefined;
  /** People a manager added (read each time: the tenant's settings). */
  addedManagers?(): readonly string[];
  /** ADMIN_USER_IDS. */
  isConfiguredAdmin(userId: string): boolean;
  roleOf: WorkspaceRoleLookup;
  logger: Logger;
  /** How long an answer of users.info is reused (default 1 minute: a demoted admin loses access quickly). */
  ttlMs?: number;
  now?: () => number;
  /** Users whose role is remembered at most, when no process-wide cache is given. */
  maxEntries?: number;
  /** The process's cache for this tenant (OAuth mode: one bound for every tenant's caches). */
  cache?: CacheView<CachedRole> | undefined;
}

type CachedRole = { admin: boolean; expires: number };

/**
 * Who may connect and disconnect docs projects and change the tenant's settings: the first installer, the
 * workspace's admins and owners (org admins and owners for an org-wide install; users.info, cached briefly),
 * people a manager added, and ADMIN_USER_IDS. Asked again on every submit, never remembered per form.
 * Fails closed: a user Slack could not tell about may not manage.
 */
export class SettingsManagers {
  private readonly cache: CacheView<CachedRole>;
  /** Look-ups on their way, shared: one Home asks for the same person from two of its sections at once. */
  private readonly asking = new LazyMap<string, Promise<boolean>>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(private readonly options: SettingsManagersOptions) {
    this.ttlMs = options.ttlMs ?? 60_000;
    this.now = options.now ?? Date.now;
    this.cache = options.cache ?? new ProcessLru(options.maxEntries ?? 5000).view('managers');
  }

  /** Known without asking Slack: the installer, someone a manager added, or ADMIN_USER_IDS. */
  knownManager(userId: string): boolean {
    return (
      userId === this.options.installerUserId() ||
      this.options.isConfiguredAdmin(userId) ||
      (this.options.addedManagers?.().includes(userId) ?? false)
    );
  }

  async mayManage(userId: string): Promise<boolean> {
    if (this.knownManager(userId)) return true;
    const cached = this.cache.get(userId);
    if (cached && cached.expires > this.now()) return cached.admin;
    const asking = this.asking.get(userId);
    if (asking) return asking;
    const answer = this.ask(userId).finally(() => this.asking.delete(userId));
    this.asking.set(userId, answer);
    return answer;
  }

  private async ask(userId: string): Promise<boolean> {
    let admin = false;
    try {
      admin = (await this.options.roleOf(userId))?.admin ?? false;
    } catch (error) {
      this.options.logger.warn(
        { userId, error: describeError(error) },
        'could not tell whether the user is a workspace admin',
      );
      return false;
    }
    this.cache.set(userId, { admin, expires: this.now() + this.ttlMs });
    return admin;
  }

  /** The installer's id, for "who can" texts. */
  installerUserId(): string | undefined {
    return this.options.installerUserId();
  }
}
