import { describeError } from '../../../common/errors.js';
import type { Logger } from '../../../common/logger.js';

/** The users.info answer read here. */
export interface GuestLookup {
  users: {
    info(args: { user: string }): Promise<{
      user?: {
        is_restricted?: boolean;
        is_ultra_restricted?: boolean;
        is_stranger?: boolean;
        team_id?: string;
      };
    }>;
  };
}

const TTL_MS = 10 * 60 * 1000;
const MAX_ENTRIES = 2000;

/**
 * Whether a user is a guest (single- or multi-channel) or of another organisation, from users.info,
 * remembered 10 minutes per user in this process. Fails closed: a failed lookup counts as a guest, so
 * numbers are never shown to someone the bot could not check.
 */
export class GuestStatus {
  private readonly known = new Map<string, { restricted: boolean; until: number }>();

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  async isGuestOrExternal(client: GuestLookup, userId: string, homeTeam: string | undefined) {
    const cached = this.known.get(userId);
    if (cached && cached.until > this.now()) return cached.restricted;
    let restricted: boolean;
    try {
      const { user } = await client.users.info({ user: userId });
      restricted =
        !user ||
        user.is_restricted === true ||
        user.is_ultra_restricted === true ||
        user.is_stranger === true ||
        (homeTeam !== undefined && user.team_id !== undefined && user.team_id !== homeTeam);
    } catch (error) {
      this.logger.info({ error: describeError(error) }, 'users.info failed; previewing without numbers');
      return true;
    }
    if (this.known.size >= MAX_ENTRIES) this.known.delete(this.known.keys().next().value as string);
    this.known.set(userId, { restricted, until: this.now() + TTL_MS });
    return restricted;
  }
}
