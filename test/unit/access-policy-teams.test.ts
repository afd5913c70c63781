import { describe, expect, it } from 'vitest';
import { AccessPolicy } from '../../src/common/access-policy.js';

const policy = new AccessPolicy({ channelIds: [], userIds: [] });
const external = { ok: false, reason: 'external' };

describe('AccessPolicy.checkTeam', () => {
  it('lets in the home team, and anyone when a team is not known on either side', () => {
    expect(policy.checkTeam('T1', 'T1')).toEqual({ ok: true });
    expect(policy.checkTeam(undefined, 'T1')).toEqual({ ok: true });
    expect(policy.checkTeam('T2', undefined)).toEqual({ ok: true });
  });

  it('refuses another team, unless the install is org-wide and the user is of that org', () => {
    expect(policy.checkTeam('T2', 'T1')).toEqual(external);
    expect(policy.checkTeam('T2', 'T1', { install: 'E1', user: 'E1' })).toEqual({ ok: true });
    expect(policy.checkTeam('T2', 'T1', { install: 'E1', user: 'E2' })).toEqual(external);
    expect(policy.checkTeam('T2', 'T1', { install: 'E1', user: undefined })).toEqual(external);
    // A workspace install (no org-wide org): the user's org does not matter.
    expect(policy.checkTeam('T2', 'T1', { install: undefined, user: undefined })).toEqual(external);
    expect(policy.checkTeam('T2', 'T1', { user: 'E1' })).toEqual(external);
  });

  it('ALLOW_EXTERNAL_USERS lets everyone in', () => {
    const open = new AccessPolicy({ channelIds: [], userIds: [], allowExternalUsers: true });
    expect(open.checkTeam('T2', 'T1', { install: 'E1', user: 'E2' })).toEqual({ ok: true });
  });
});
