import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { GitHubClients, SLOTS_PER_SCOPE } from '../../src/github/github-client.js';
import { GitHubPullRequests } from '../../src/github/github-pull-requests.js';
import { FAKE_GITHUB_TOKEN, FakeGitHub } from '../support/fake-github.js';
import { waitFor } from '../support/http.js';

/**
 * Issue 43: one Octokit per process, and each tenant's scope with request slots of its own: a tenant whose
 * GitHub reads hang holds its own slots, never the others'.
 */
describe('GitHub: one client per process, slots per tenant', () => {
  let github: FakeGitHub;
  const logger = createLogger({ level: 'silent', secrets: [] });
  beforeAll(async () => {
    github = await FakeGitHub.start();
    for (let n = 1; n <= SLOTS_PER_SCOPE + 2; n += 1) github.addPull('alpha-org', 'docs', n);
    github.addPull('beta-org', 'docs', 7);
  });
  afterAll(async () => {
    await github?.close();
  });

  it("reads tenant B's pull request while tenant A's reads hang, over one Octokit", async () => {
    const clients = new GitHubClients();
    // Both tenants read with the operator's token, through the process's one set of clients.
    const reader = () =>
      new GitHubPullRequests({ token: FAKE_GITHUB_TOKEN, apiUrl: github.url, logger }, Date.now, clients);
    const alpha = reader();
    const beta = reader();
    github.hold('alpha-org/docs');
    const alphaReads = Array.from({ length: SLOTS_PER_SCOPE + 2 }, (_, i) =>
      alpha.read({ owner: 'alpha-org', repo: 'docs', number: i + 1 }),
    );
    // Tenant A has every one of its slots taken by a read GitHub has not answered.
    await waitFor(() => github.waitingIn('alpha-org/docs') === SLOTS_PER_SCOPE, { what: "A's reads" });
    const read = await beta.read({ owner: 'beta-org', repo: 'docs', number: 7 });
    expect(read.state).toBe('open');
    expect(github.waitingIn('alpha-org/docs')).toBe(SLOTS_PER_SCOPE); // A's still hang, and no more were sent
    github.release('alpha-org/docs');
    expect((await Promise.all(alphaReads)).map((r) => r.state)).toEqual(alphaReads.map(() => 'open'));
    expect(clients.size).toBe(1);
  });
});
