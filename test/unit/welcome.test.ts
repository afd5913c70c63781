import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { HOME_CONNECT_ACTION } from '../../src/slack/messages/project-settings.js';
import { welcomeMessage } from '../../src/slack/messages/welcome.js';
import { oweWelcome, WELCOME_WINDOW_MS } from '../../src/slack/welcome.js';
import { recordingOutbox } from '../support/recording-outbox.js';
import { checkMessage } from '../support/slack-block-kit-limits.js';

const logger = createLogger({ level: 'silent', secrets: [] });
const installation = {
  tenant: 'T0ACME',
  name: 'Acme <Docs> & Co',
  installerUserId: 'U0INSTALLER',
  installedAt: 1_000_000,
};
const dm = { openDirectMessage: async (user: string) => `D${user.slice(1)}` };

describe('the welcome message', () => {
  it('is owed to the installer’s DM, once per install whichever start owes it', async () => {
    const { outbox, sent, settle } = recordingOutbox();
    for (const now of [installation.installedAt + 5, installation.installedAt + 60_000])
      expect(await oweWelcome({ gateway: dm, outbox, installation, now, logger })).toBe('owed');
    await settle();
    expect(sent).toHaveLength(1);
    expect(sent[0]?.key).toBe('welcome:T0ACME:1000000');
    expect(sent[0]?.target).toEqual({ kind: 'post', channel: 'D0INSTALLER', threadTs: null });
  });

  it('is not owed a day after the install (a replica starting later), nor without a DM', async () => {
    const { outbox, sent, settle } = recordingOutbox();
    const late = installation.installedAt + WELCOME_WINDOW_MS + 1;
    expect(await oweWelcome({ gateway: dm, outbox, installation, now: late, logger })).toBe('not-fresh');
    const refused = {
      openDirectMessage: async () => {
        throw Object.assign(new Error('missing_scope'), { code: 'missing_scope' });
      },
    };
    const now = installation.installedAt;
    expect(await oweWelcome({ gateway: refused, outbox, installation, now, logger })).toBe('not-owed');
    await settle();
    expect(sent).toEqual([]);
  });

  it('names the workspace escaped, and its one primary button opens the connect form', () => {
    const message = welcomeMessage(installation.name);
    const json = JSON.stringify(message);
    expect(json).toContain('Acme &lt;Docs&gt; &amp; Co');
    expect(json).not.toContain('<Docs>');
    const actions = message.blocks?.find((b) => b.type === 'actions') as unknown as {
      elements: Array<Record<string, unknown>>;
    };
    expect(actions.elements).toEqual([
      expect.objectContaining({ action_id: HOME_CONNECT_ACTION, style: 'primary' }),
    ]);
    expect(checkMessage(message)).toEqual({ ok: true });
  });
});
