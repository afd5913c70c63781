import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { tokenRevoked } from '../../src/slack/listeners/events/token-revoked.js';

/*
 * Issue 44: a late uninstall signal is compared with the latest install, not the first, so a re-install made
 * after Slack sent the signal is not purged.
 */

const FIRST = 1_000_000_000_000; // first installed
const LATEST = FIRST + 3_600_000; // installed again an hour later

function listener(install: { installedAt: number; lastInstalledAt?: number; botUserId: string }) {
  const reasons: string[] = [];
  const handle = tokenRevoked({
    logger: createLogger({ level: 'silent', secrets: [] }),
    installed: () => install,
    tokenRevoked: (reason) => reasons.push(reason),
  });
  return { reasons, handle };
}

const at = (ms: number) => ({ event_time: Math.floor(ms / 1000) });

describe('an uninstall signal and the install served now', () => {
  it('sent between the first install and the latest re-install: ignored (the re-install stays)', async () => {
    const { reasons, handle } = listener({ installedAt: FIRST, lastInstalledAt: LATEST, botUserId: 'U0BOT' });
    await handle({ event: { type: 'app_uninstalled' }, body: at(FIRST + 60_000) });
    await handle({ event: { type: 'tokens_revoked', tokens: { bot: ['U0BOT'] } }, body: at(LATEST - 2_000) });
    expect(reasons).toEqual([]);
  });

  it('sent after the latest install (or in its second): counts', async () => {
    const { reasons, handle } = listener({ installedAt: FIRST, lastInstalledAt: LATEST, botUserId: 'U0BOT' });
    await handle({ event: { type: 'app_uninstalled' }, body: at(LATEST) });
    await handle({ event: { type: 'tokens_revoked', tokens: { bot: ['U0BOT'] } }, body: at(LATEST + 5_000) });
    expect(reasons).toEqual(['the app was uninstalled', 'the bot token was revoked']);
  });

  it('a record from before the latest install was kept: compared with its first install', async () => {
    const { reasons, handle } = listener({ installedAt: FIRST, botUserId: 'U0BOT' });
    await handle({ event: { type: 'app_uninstalled' }, body: at(FIRST - 60_000) });
    expect(reasons).toEqual([]);
    await handle({ event: { type: 'app_uninstalled' }, body: at(FIRST + 60_000) });
    expect(reasons).toEqual(['the app was uninstalled']);
  });
});
