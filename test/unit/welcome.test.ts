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
    const starts = [installation.installedAt + 5, installation.installedAt + 60_000];
    const owed = await Promise.all(
      starts.map((now) => oweWelcome({ gateway: dm, outbox, installation, now, logger })),
    );
    // Two starts at once (two replicas) may both owe it; the outbox still sends it once.
    expect(owed).toEqual(['owed', 'owed']);
    expect(await oweWelcome({ gateway: dm, outbox, installation, now: starts[1]!, logger })).toBe(
      'already-owed',
    );
    await settle();
    expect(sent).toHaveLength(1);
    expect(sent[0]?.key).toBe('welcome:T0ACME:1000000');
    expect(sent[0]?.target).toEqual({ kind: 'post', channel: 'D0INSTALLER', threadTs: null });
  });

  it('once recorded, a later start neither opens the DM again nor records it again', async () => {
    const { outbox, store, settle } = recordingOutbox();
    const opened: string[] = [];
    const gateway = {
      openDirectMessage: async (user: string) => {
        opened.push(user);
        return `D${user.slice(1)}`;
      },
    };
    const now = installation.installedAt + 5;
    expect(await oweWelcome({ gateway, outbox, installation, now, logger })).toBe('owed');
    await settle();
    let recorded = 0;
    const record = store.record.bind(store);
    store.record = (...args) => {
      recorded++;
      return record(...args);
    };
    expect(await oweWelcome({ gateway, outbox, installation, now: now + 60_000, logger })).toBe(
      'already-owed',
    );
    expect(opened).toEqual(['U0INSTALLER']);
    expect(recorded).toBe(0);
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
