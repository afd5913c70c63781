import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { slackUserOf } from '../../src/slack/user-names.js';
import { administersInstall, SettingsManagers } from '../../src/tenants/settings-managers.js';

/*
 * Issue 44: users.info's `is_admin` is about the person's own workspace, so an admin of another organisation
 * (a Slack Connect channel) or a deactivated admin must not administer this install.
 */

const WORKSPACE = { isEnterpriseInstall: false, teamId: 'T0HOME', enterpriseId: undefined };
const IN_ORG = { isEnterpriseInstall: false, teamId: 'T0HOME', enterpriseId: 'E0GRID' };
const ORG_WIDE = { isEnterpriseInstall: true, teamId: undefined, enterpriseId: 'E0GRID' };

describe('administersInstall', () => {
  it('a workspace install: an admin or owner of this workspace only, and not deactivated', () => {
    expect(administersInstall({ teamId: 'T0HOME', admin: true }, WORKSPACE)).toBe(true);
    expect(administersInstall({ teamId: 'T0HOME', admin: false }, WORKSPACE)).toBe(false);
    expect(administersInstall({ teamId: 'T0OTHER', admin: true }, WORKSPACE)).toBe(false);
    expect(administersInstall({ teamId: undefined, admin: true }, WORKSPACE)).toBe(false);
    expect(administersInstall({ teamId: 'T0HOME', admin: true, deleted: true }, WORKSPACE)).toBe(false);
    // Inside an org: another workspace's admin of the same org administers another workspace, not this one.
    expect(administersInstall({ teamId: 'T0SISTER', enterpriseId: 'E0GRID', admin: true }, IN_ORG)).toBe(
      false,
    );
    expect(administersInstall({ teamId: 'T0HOME', enterpriseId: 'E0GRID', admin: true }, IN_ORG)).toBe(true);
  });

  it('an org-wide install: an admin or owner of this org only, and not deactivated', () => {
    const orgAdmin = { teamId: 'T0ANY', enterpriseId: 'E0GRID', admin: false, orgAdmin: true };
    expect(administersInstall(orgAdmin, ORG_WIDE)).toBe(true);
    expect(administersInstall({ ...orgAdmin, enterpriseId: 'E0OTHER' }, ORG_WIDE)).toBe(false);
    expect(administersInstall({ ...orgAdmin, enterpriseId: undefined }, ORG_WIDE)).toBe(false);
    expect(administersInstall({ ...orgAdmin, deleted: true }, ORG_WIDE)).toBe(false);
    // A workspace admin is not an org admin.
    expect(administersInstall({ ...orgAdmin, admin: true, orgAdmin: false }, ORG_WIDE)).toBe(false);
  });

  it('reads users.info as Slack sends it: `deleted`, `team_id`, `enterprise_user`', () => {
    const outsider = slackUserOf({ team_id: 'T0OTHER', is_owner: true });
    expect(outsider).toMatchObject({ teamId: 'T0OTHER', admin: true });
    expect(administersInstall(outsider, WORKSPACE)).toBe(false);
    const gone = slackUserOf({ team_id: 'T0HOME', is_admin: true, deleted: true } as never);
    expect(gone.deleted).toBe(true);
    expect(administersInstall(gone, WORKSPACE)).toBe(false);
  });

  it('SettingsManagers with the rule: the other organisation’s admin may not manage; this one’s may', async () => {
    const people: Record<string, Parameters<typeof administersInstall>[0]> = {
      U0OURS: { teamId: 'T0HOME', admin: true },
      U0THEIRS: { teamId: 'T0OTHER', admin: true },
    };
    const managers = new SettingsManagers({
      installerUserId: () => 'U0INSTALLER',
      isConfiguredAdmin: () => false,
      roleOf: async (id) => {
        const person = people[id];
        return person ? { admin: administersInstall(person, WORKSPACE) } : undefined;
      },
      logger: createLogger({ level: 'silent', secrets: [] }),
    });
    expect(await managers.mayManage('U0OURS')).toBe(true);
    expect(await managers.mayManage('U0THEIRS')).toBe(false);
    expect(await managers.mayManage('U0INSTALLER')).toBe(true);
  });
});
