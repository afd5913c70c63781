import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../../src/common/logger.js';
import { AppHomePublisher } from '../../../src/slack/app-home-publisher.js';
import { appHomeView } from '../../../src/slack/messages/app-home.js';
import {
  HOME_ALERT_ADD_ACTION,
  HOME_ALERT_MENU_ACTION,
} from '../../../src/slack/messages/home-alerts-form.js';
import { checkView } from '../../support/fake-slack-surfaces.js';

const base = { userId: 'U0ALICE', jobs: [], schedules: [], budgets: [] };

describe('App Home: your docs-health alerts', () => {
  it('lists the user’s alert channels with their sensitivity and menus, or [Add alert channel]', () => {
    const view = appHomeView({
      ...base,
      alerts: [
        { channelId: 'C0B', sensitivity: 'high' },
        { channelId: 'C0A', sensitivity: 'normal' },
      ],
    });
    expect(checkView(view, 'home')).toEqual({ ok: true });
    const shown = JSON.stringify(view);
    expect(shown.indexOf('<#C0A> · normal sensitivity')).toBeLessThan(
      shown.indexOf('<#C0B> · high sensitivity'),
    );
    expect(shown).toContain(HOME_ALERT_MENU_ACTION);
    const none = JSON.stringify(appHomeView({ ...base, alerts: [] }));
    expect(none).toContain('None yet');
    expect(none).toContain(HOME_ALERT_ADD_ACTION);
    // Many channels stay within Home's 100 blocks.
    const many = Array.from({ length: 200 }, (_, i) => ({ channelId: `C${i}`, sensitivity: 'low' }));
    expect(checkView(appHomeView({ ...base, alerts: many }), 'home')).toEqual({ ok: true });
  });

  it('the publisher reads the user’s alert channels for their Home', async () => {
    const alerts = vi.fn(async () => [{ channelId: 'C0ALERTS', sensitivity: 'low' }]);
    const published: string[] = [];
    const publisher = new AppHomePublisher({
      store: {
        listByRequester: async () => [],
        mark: async () => undefined,
        isMarked: async () => true,
        claim: async () => true,
        release: async () => undefined,
      },
      schedules: async () => [],
      budgets: async () => [],
      alerts,
      publish: async (_user, view) => {
        published.push(JSON.stringify(view));
        return 'hash';
      },
      logger: createLogger({ level: 'silent', secrets: [] }),
      debounceMs: 1,
    });
    await publisher.opened(null, 'U0ALICE');
    await publisher.close();
    expect(alerts).toHaveBeenCalledWith('U0ALICE');
    expect(published.at(-1)).toContain('<#C0ALERTS> · low sensitivity');
  });
});
