import type { Logger } from '../../common/logger.js';
import { LOSS_LOOKUP_MS } from './redis-delivery-scripts.js';

/**
 * The epoch of the outbox's Redis as this replica last saw it (`<id>/<generation>`, see
 * redis-delivery-scripts): handed to every script, so a script that finds the epoch gone or replaced knows
 * Redis lost data, and said in the logs when it changes.
 */
export class EpochWatch {
  known = '';

  constructor(private readonly logger?: Logger) {}

  saw(tag: string): void {
    if (!tag || tag === this.known) return;
    const before = this.known;
    this.known = tag;
    if (!before) return;
    const [oldId] = before.split('/');
    const [newId] = tag.split('/');
    const lookupMinutes = LOSS_LOOKUP_MS / 60_000;
    if (oldId !== newId)
      this.logger?.error(
        { epoch: tag, previous: before },
        `Redis lost its data (the outbox's epoch key is gone): messages the bot owed that were recorded there are lost, and those still in this replica are recorded again; posts in the next ${lookupMinutes} minutes are looked up in Slack before they are sent`,
      );
    else
      this.logger?.warn(
        { epoch: tag, previous: before },
        `Redis restarted: its last writes may be lost (appendfsync everysec, a failover), so posts owed from before and those of the next ${lookupMinutes} minutes are looked up in Slack before they are sent`,
      );
  }

  recordedAgain(key: string): void {
    this.logger?.warn({ key }, 'a message this replica was delivering was lost by Redis; recorded again');
  }
}
