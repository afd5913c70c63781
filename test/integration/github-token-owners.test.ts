import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/common/config.js';
import { createLogger } from '../../src/common/logger.js';
import { tenantConfig } from '../../src/composition/oauth/tenant-config.js';
import { GitHubNewestPullRequests } from '../../src/github/github-newest-pulls.js';
import { GitHubPullRequests } from '../../src/github/github-pull-requests.js';
import { FakeDocs } from '../support/fake-docs.js';
import { FakeGitHub } from '../support/fake-github.js';
import { FakeSlack } from '../support/fake-slack.js';
import { testTenant } from '../support/map-tenant-directory.js';
import { oauthEnv } from '../support/oauth-app.js';

/**
 * Issue 36, finding 6: in OAuth mode the repository a job's PR lives in comes from the tenant's own docs data,
 * so the operator's GITHUB_TOKEN is used for tenants only on GITHUB_TOKEN_OWNERS' repositories, and not at all
 * without that list. Against a fake GitHub over HTTP: a repository of another owner is never asked for.
 */
const OPERATOR_TOKEN = 'ghp_operator0123456789abcdefghij';
const logger = createLogger({ level: 'silent', secrets: [] });

describe("the operator's GitHub token in OAuth mode", () => {
  let github: FakeGitHub;
  let slack: FakeSlack;
  let docs: FakeDocs;
  beforeAll(async () => {
    [github, slack, docs] = await Promise.all([FakeGitHub.start(), FakeSlack.start(), FakeDocs.start()]);
    github.token = OPERATOR_TOKEN;
    github.addPull('allowed-org', 'docs', 7);
    github.addPull('someone-else', 'private-repo', 3);
  });
  afterAll(async () => {
    await Promise.all([github.close(), slack.close(), docs.close()]);
  });

  const configWith = (extra: Record<string, string>) =>
    loadConfig(oauthEnv(slack, docs, { GITHUB_TOKEN: OPERATOR_TOKEN, GITHUB_API_URL: github.url, ...extra }));
  const tenantGithub = (extra: Record<string, string>) => {
    const { scope } = testTenant();
    return tenantConfig(configWith(extra), scope.key, scope.installation, []).github;
  };

  it('is not given to tenants without GITHUB_TOKEN_OWNERS', () => {
    expect(tenantGithub({}).token).toBeUndefined();
  });

  it("reads only the listed owners' repositories; another owner's is refused before it is sent", async () => {
    const config = tenantGithub({ GITHUB_TOKEN_OWNERS: 'Allowed-Org, other-org' });
    expect(config).toMatchObject({ token: OPERATOR_TOKEN, owners: ['allowed-org', 'other-org'] });
    const reader = new GitHubPullRequests({
      token: config.token!,
      apiUrl: config.apiUrl,
      logger,
      ...(config.owners ? { owners: config.owners } : {}),
    });
    expect((await reader.read({ owner: 'allowed-org', repo: 'docs', number: 7 })).state).toBe('open');
    const before = github.requests.length;
    await expect(
      reader.read({ owner: 'someone-else', repo: 'private-repo', number: 3 }),
    ).rejects.toMatchObject({
      code: 'github_unreadable',
    });
    const feed = new GitHubNewestPullRequests(reader.access);
    await expect(feed.newest({ owner: 'someone-else', repo: 'private-repo' }, null)).rejects.toMatchObject({
      code: 'github_unreadable',
    });
    expect(github.requests.slice(before)).toEqual([]);
  });
});
