import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/common/config.js';
import { secretsOf } from '../../src/common/config-secrets.js';
import {
  ChannelProjectsError,
  NO_CHANNEL_PROJECTS,
  ProjectDirectory,
  parseChannelProjectEntries,
  parseChannelProjects,
} from '../../src/common/projects.js';
import { projectsOf } from '../../src/composition/oauth/tenant-config.js';

describe('parseChannelProjects', () => {
  it('maps channels to projects, tolerating spaces', () => {
    const map = parseChannelProjects(' C0123ABC=proj_a , C0456DEF = proj_b ');
    expect([...map]).toEqual([
      ['C0123ABC', 'proj_a'],
      ['C0456DEF', 'proj_b'],
    ]);
  });

  it('treats blank or missing input as no mapping', () => {
    expect(parseChannelProjects(undefined).size).toBe(0);
    expect(parseChannelProjects('   ').size).toBe(0);
  });

  it.each([
    ['C0123ABC=proj_a,', /entry 2 is empty/],
    ['C0123ABC', /entry 1 "C0123ABC" must look like CHANNEL_ID=project_id/],
    ['C0123ABC=a=b', /must look like CHANNEL_ID=project_id/],
    ['#docs=proj_a', /"#docs" is not a Slack channel id/],
    ['c0123abc=proj_a', /not a Slack channel id/],
    ['C0123ABC=', /"" is not a project id/],
    ['C0123ABC=proj a', /"proj a" is not a project id/],
    ['C0123ABC=proj_a,C0123ABC=proj_b', /entry 2: channel C0123ABC is listed more than once/],
  ])('refuses %j with a clear error', (text, message) => {
    let caught: unknown;
    try {
      parseChannelProjects(text);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ChannelProjectsError);
    expect((caught as ChannelProjectsError).code).toBe('invalid_channel_projects');
    expect((caught as Error).message).toMatch(message);
  });
});

describe('per-project admin keys in DOCS_CHANNEL_PROJECTS', () => {
  const KEY_B = 'svc_project_b_0123456789';
  it('reads `CHANNEL=project:svc_…`, keeps them out of the channel map, and makes them secrets', () => {
    const entries = parseChannelProjectEntries(`C0A=proj_a, C0B=proj_b:${KEY_B}, C0C=proj_b:${KEY_B}`);
    expect([...entries.channels]).toEqual([
      ['C0A', 'proj_a'],
      ['C0B', 'proj_b'],
      ['C0C', 'proj_b'],
    ]);
    expect([...entries.keys]).toEqual([['proj_b', KEY_B]]);
    const config = loadConfig({
      SLACK_BOT_TOKEN: 'xoxb-1234567890-abcdefghijkl',
      SLACK_SIGNING_SECRET: 'abcdef0123456789abcdef0123456789',
      DOCS_API_KEY: 'svc_org_key_0123456789',
      DOCS_PROJECT_ID: 'proj_default',
      DOCS_CHANNEL_PROJECTS: `C0B=proj_b:${KEY_B}`,
    });
    expect(config.docs.projectKeys.get('proj_b')).toBe(KEY_B);
    expect(secretsOf(config)).toContain(KEY_B);
  });

  it('refuses a malformed key or two keys for one project, without echoing the key', () => {
    for (const text of [
      'C0A=proj_a:not-a-key-secret',
      'C0A=proj_a:svc_x:y',
      `C0A=proj_a:${KEY_B},C0B=proj_a:svc_other_0123456789`,
    ]) {
      let message = '';
      try {
        parseChannelProjectEntries(text);
      } catch (error) {
        expect(error).toBeInstanceOf(ChannelProjectsError);
        message = (error as Error).message;
      }
      expect(message).not.toBe('');
      expect(message).not.toMatch(/not-a-key-secret|svc_x|svc_other|svc_project_b/);
    }
  });
});

describe('ProjectDirectory', () => {
  const directory = ProjectDirectory.fromText('proj_default', 'C0123ABC=proj_a,C0456DEF=proj_b');

  it('answers the channel project, else the default', () => {
    expect(directory.projectFor('C0123ABC')).toBe('proj_a');
    expect(directory.projectFor('C0456DEF')).toBe('proj_b');
    expect(directory.projectFor('C0OTHER')).toBe('proj_default');
    expect(directory.projectFor(undefined)).toBe('proj_default');
  });

  it('holds no table of its own when no channel has a project of its own, and copies a mapping it is given', () => {
    const connection = { projectId: 'proj_a', apiKey: 'k', connectedBy: 'U1', connectedAt: 0 };
    const { channels } = projectsOf([{ ...connection, channelId: undefined }]);
    expect(channels).toBe(NO_CHANNEL_PROJECTS);
    const plain = new ProjectDirectory('proj_a', channels);
    const replaced = new ProjectDirectory('proj_b', new Map([['C1', 'proj_c']]));
    replaced.replace('proj_b', new Map());
    const own = (d: ProjectDirectory) =>
      (d as unknown as { byChannel: ReadonlyMap<string, string> }).byChannel;
    expect([own(plain), own(replaced)]).toEqual([NO_CHANNEL_PROJECTS, NO_CHANNEL_PROJECTS]);
    expect(own(plain)).toBe(NO_CHANNEL_PROJECTS);
    expect(own(replaced)).toBe(NO_CHANNEL_PROJECTS);
    const mapping = new Map([['C1', 'proj_c']]);
    const mapped = new ProjectDirectory('proj_b', mapping);
    mapping.set('C2', 'proj_d');
    expect([mapped.projectFor('C1'), mapped.projectFor('C2')]).toEqual(['proj_c', 'proj_b']);
    expect(NO_CHANNEL_PROJECTS.size).toBe(0);
  });

  it('lists every project once, default first', () => {
    const shared = ProjectDirectory.fromText('proj_a', 'C0123ABC=proj_a,C0456DEF=proj_b,C0789GHI=proj_b');
    expect(shared.all()).toEqual(['proj_a', 'proj_b']);
    expect(directory.all()).toEqual(['proj_default', 'proj_a', 'proj_b']);
  });

  it('is multi only when more than one distinct project is configured', () => {
    expect(directory.isMulti).toBe(true);
    expect(new ProjectDirectory('proj_a').isMulti).toBe(false);
    expect(ProjectDirectory.fromText('proj_a', 'C0123ABC=proj_a').isMulti).toBe(false);
  });

  it('refuses a malformed default project', () => {
    expect(() => new ProjectDirectory('')).toThrow(ChannelProjectsError);
  });

  it('does not change when the map it was built from changes', () => {
    const map = new Map([['C0123ABC', 'proj_a']]);
    const owned = new ProjectDirectory('proj_default', map);
    map.set('C0123ABC', 'proj_z');
    expect(owned.projectFor('C0123ABC')).toBe('proj_a');
  });
});
