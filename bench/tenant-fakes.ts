import type { FakeDocs } from '../test/support/fake-docs.js';
import type { FakeSlack } from '../test/support/fake-slack.js';
import type { NextInstall } from '../test/support/fake-slack-oauth.js';
import type { SlackRateTiers } from '../test/support/slack-rate-tiers.js';

/**
 * The fakes process's side of the many-tenants benchmark (bench/tenants.ts): the fake Slack's OAuth app
 * ("Add to Slack" with per-workspace tokens), a 429 storm for one tenant's token, extra docs projects with
 * their own keys, and when each marked card reached Slack (the reply a user sees).
 */
export type TenantCommand =
  /**
   * The client id and secret the app must be configured with; `homeToken` stays the home workspace's once
   * OAuth tokens are issued (a single-workspace app measured beside the OAuth ones).
   */
  | { cmd: 'oauthApp'; homeToken?: string; homeTokenPrefix?: string }
  /** The next Allow installs here and returns to `redirectUrl` (the replica the install started on). */
  | { cmd: 'nextInstall'; install: NextInstall; redirectUrl: string }
  /** Every call with this tenant's token answers 429 with Retry-After (null: the storm ends). */
  | { cmd: 'storm'; tenant: string | null; retryAfterS: number }
  | { cmd: 'addProject'; projectId: string; apiKey: string }
  /** When (Date.now()) the first chat.postMessage carrying `marker` arrived with `tenant`'s token, or null. */
  | { cmd: 'waitPost'; tenant: string; marker: string; timeoutMs: number }
  /** Calls and 429 answers per tenant since the fakes started. */
  | { cmd: 'tenantCalls' };

export interface TenantCallCounts {
  calls: Record<string, number>;
  limited: Record<string, number>;
}

const MARKER = /bench-mark-[a-z0-9-]+/;

export function tenantCommands(slack: FakeSlack, docs: FakeDocs) {
  const posts = new Map<string, number>();
  const counts: TenantCallCounts = { calls: {}, limited: {} };
  // Record posts as they arrive: the fakes process empties its call list every second.
  const push = slack.calls.push.bind(slack.calls);
  slack.calls.push = (...items) => {
    for (const call of items) {
      const tenant = slack.oauth.tenantOf(call.authorization, call.args) ?? 'home';
      counts.calls[tenant] = (counts.calls[tenant] ?? 0) + 1;
      if (call.method !== 'chat.postMessage') continue;
      const marker = MARKER.exec(JSON.stringify(call.args))?.[0];
      if (marker && !posts.has(`${tenant} ${marker}`)) posts.set(`${tenant} ${marker}`, Date.now());
    }
    return push(...items);
  };
  return async (command: TenantCommand): Promise<unknown> => {
    switch (command.cmd) {
      case 'oauthApp':
        if (command.homeToken) slack.oauth.homeTokens.add(command.homeToken);
        if (command.homeTokenPrefix) slack.oauth.homeTokenPrefixes.add(command.homeTokenPrefix);
        return { clientId: slack.oauth.clientId, clientSecret: slack.oauth.clientSecret };
      case 'nextInstall':
        slack.oauth.redirectUrls = [command.redirectUrl];
        slack.oauth.nextInstall(command.install);
        return true;
      case 'storm': {
        const { tenant, retryAfterS } = command;
        // Only `take` is used by the fake: one tenant's every call is limited, as Slack does per workspace.
        slack.rateTiers =
          tenant === null
            ? undefined
            : ({
                take: (_method: string, caller: string) => {
                  if (caller !== tenant) return undefined;
                  counts.limited[caller] = (counts.limited[caller] ?? 0) + 1;
                  return retryAfterS;
                },
              } as unknown as SlackRateTiers);
        return true;
      }
      case 'addProject':
        docs.projects.add(command.projectId);
        docs.projectKeys.set(command.projectId, command.apiKey);
        return true;
      case 'waitPost': {
        const key = `${command.tenant} ${command.marker}`;
        const deadline = Date.now() + command.timeoutMs;
        while (!posts.has(key) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
        return posts.get(key) ?? null;
      }
      case 'tenantCalls':
        return counts;
    }
  };
}
