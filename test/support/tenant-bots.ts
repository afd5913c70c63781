import { createClient } from '@redis/client';
import { DIRECTORY_PREFIX } from '../../src/composition/oauth/tenant-config.js';
import type { BotProcess } from './bot-process.js';
import type { FakeDocs } from './fake-docs.js';
import type { FakeSlack } from './fake-slack.js';
import type { NextInstall } from './fake-slack-oauth.js';
import { waitFor } from './http.js';
import { SlackRateTiers } from './slack-rate-tiers.js';

/*
 * Tenants of the OAuth-mode process tests: two workspaces and one Enterprise Grid org (installed org-wide,
 * its events coming from a workspace of the org). Every id, channel, user, prompt and page of a tenant
 * carries its marker (ALPHA, BETA, GRID), so any Slack call can be checked for which tenant's data it holds.
 */

export interface TestTenant {
  /** The tenant as the bot keys it: the workspace, or the org for an org-wide install. */
  key: string;
  /** The workspace requests come from. */
  teamId: string;
  enterpriseId: string | undefined;
  marker: 'ALPHA' | 'BETA' | 'GRID' | 'DELTA';
  install: NextInstall;
  user: string;
  channel: (n: number) => string;
  project: string;
  apiKey: string;
}

function tenant(marker: TestTenant['marker'], install: NextInstall, teamId: string): TestTenant {
  const lower = marker.toLowerCase();
  return {
    key: install.isEnterpriseInstall ? install.enterpriseId : install.teamId,
    teamId,
    enterpriseId: install.enterpriseId,
    marker,
    install,
    user: `U0${marker}`,
    channel: (n) => `C0${marker}${n}`,
    project: `proj_${lower}_docs`,
    apiKey: `svc_${lower}_admin_key_0123456789abcdefghijklmn`,
  };
}

export const ALPHA = tenant('ALPHA', { teamId: 'T0ALPHA', teamName: 'Alpha Co' }, 'T0ALPHA');
export const BETA = tenant('BETA', { teamId: 'T0BETA', teamName: 'Beta Inc' }, 'T0BETA');
export const GRID = tenant(
  'GRID',
  { enterpriseId: 'E0GRID', enterpriseName: 'Grid Corp', isEnterpriseInstall: true },
  'T0GRIDWS',
);
/** Installed when the replicas start. */
export const INSTALLED = [ALPHA, BETA, GRID] as const;
/** Installed by a test, later. */
export const DELTA = tenant('DELTA', { teamId: 'T0DELTA', teamName: 'Delta LLC' }, 'T0DELTA');
export const TENANTS = [...INSTALLED, DELTA] as const;

/** The fakes know each tenant: its users' team, its project and the one key that opens it. */
export function registerTenants(slack: FakeSlack, docs: FakeDocs): void {
  for (const t of TENANTS) {
    slack.userTeams.set(t.user, t.teamId);
    // A Grid user's users.info names their org (an org-wide install lets its own org's people in).
    if (t.enterpriseId) slack.userEnterprises.set(t.user, t.enterpriseId);
    slack.users.set(t.user, { name: `${t.marker.toLowerCase()}-user` });
    docs.projects.add(t.project);
    docs.projectKeys.set(t.project, t.apiKey);
  }
}

/** Installs through the real flow on `via`: install page → Slack's authorize page → Allow → callback. */
export async function installThrough(via: BotProcess, slack: FakeSlack, t: TestTenant): Promise<string> {
  slack.oauth.redirectUrls = [`${via.url}/slack/oauth_redirect`];
  slack.oauth.nextInstall(t.install);
  // The tenant's person installs: they may connect its docs project.
  slack.oauth.installerUserId = t.user;
  const href = (html: string, marker: RegExp) => {
    const found = marker.exec(html)?.[1];
    if (!found) throw new Error(`no link matching ${marker} in ${html.slice(0, 300)}`);
    return found.replaceAll('&amp;', '&');
  };
  const page = await fetch(`${via.url}/slack/install`);
  const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const authorize = href(await page.text(), /class="slack-button" href="([^"]+)"/);
  const consent = await (await fetch(authorize)).text();
  const done = await fetch(href(consent, /id="allow" href="([^"]+)"/), {
    headers: { cookie },
    redirect: 'manual',
  });
  // Success is a 303 on to the success page (redirect-after-success).
  const location = done.status === 303 ? done.headers.get('location') : null;
  if (!location) throw new Error(`install of ${t.key} answered ${done.status}: ${await done.text()}`);
  const shown = await fetch(new URL(location, via.url));
  const html = await shown.text();
  if (shown.status !== 200) throw new Error(`the success page of ${t.key} answered ${shown.status}: ${html}`);
  return html;
}

/** Redis keys of the directory that hold a tenant's secrets (installation, settings) or list it. */
export async function directoryEntries(redisUrl: string, t: TestTenant): Promise<string[]> {
  const client = createClient({ url: redisUrl });
  await client.connect();
  try {
    // Its record's sealed values; the state beside them holds no secret (ids, generation, purge due) and
    // stays after an uninstall, as the old layout's generations and removals did.
    const keys = (await client.keys(`${DIRECTORY_PREFIX}tenant:${t.key}:*`)).filter(
      (key) => !key.endsWith(':state'),
    );
    const listed = await client.hExists(`${DIRECTORY_PREFIX}tenants`, t.key);
    return [...keys, ...(listed ? [`${DIRECTORY_PREFIX}tenants[${t.key}]`] : [])];
  } finally {
    await client.close();
  }
}

/** A payload built for the home team (T0TEAM) rewritten as sent from the tenant's workspace (and org). */
export function asTenant<T>(payload: T, t: TestTenant): T {
  const json = JSON.parse(JSON.stringify(payload).replaceAll('"T0TEAM"', JSON.stringify(t.teamId)));
  if (!t.enterpriseId) return json;
  const org = t.install.isEnterpriseInstall === true;
  if (Array.isArray(json.authorizations))
    for (const a of json.authorizations)
      Object.assign(a, { enterprise_id: t.enterpriseId, is_enterprise_install: org });
  if (json.type === 'event_callback') json.enterprise_id = t.enterpriseId;
  if ('enterprise' in json) {
    json.enterprise = { id: t.enterpriseId, name: 'Grid Corp' };
    json.is_enterprise_install = org;
    if (json.team) json.team.enterprise_id = t.enterpriseId;
  }
  return json;
}

/** The markers of every tenant whose data `text` holds. */
export function markersIn(text: string): string[] {
  return TENANTS.filter((t) => text.includes(t.marker)).map((t) => t.marker);
}

/** Methods a 429 storm answers with Retry-After (what the bot calls to post and update). */
const STORMED = new Set([
  'chat.postMessage',
  'chat.update',
  'chat.postEphemeral',
  'views.publish',
  'views.open',
]);

/**
 * The fake Slack's per-tenant rate check (it asks it on every Web API call with the call's tenant), used to
 * time each call and to answer 429 + Retry-After (5 s) to every posting call of the tenants in `storming`.
 */
export class TenantCallClock extends SlackRateTiers {
  /** When each call (by index in `slack.calls`) reached the fake, and for which tenant. */
  readonly seen: Array<{ index: number; at: number; tenant: string; method: string }> = [];
  readonly storming = new Set<string>();
  readonly stormed = new Map<string, number>();
  /** Retry-After of the storm's 429s, in seconds: long, so any of it spilling onto another tenant shows. */
  stormRetryAfterS = 5;

  constructor(private readonly slack: FakeSlack) {
    super();
    slack.rateTiers = this;
  }

  override take(method: string, team: string): number | undefined {
    this.seen.push({ index: this.slack.calls.length - 1, at: Date.now(), tenant: team, method });
    if (!this.storming.has(team) || !STORMED.has(method)) return undefined;
    this.stormed.set(team, (this.stormed.get(team) ?? 0) + 1);
    return this.stormRetryAfterS;
  }
}

/**
 * Waits until the tenant's project is connected as a replica's scope saw it. The other replicas build the
 * scope on their first request for it (issue 34: nothing per tenant at boot), from the stored record, or,
 * already holding it, read its stamp before serving: either way they serve the connected project.
 */
export async function projectConnected(bots: BotProcess[], t: TestTenant): Promise<void> {
  await waitFor(
    () =>
      bots.some((b) =>
        b.logs.some(
          (l) =>
            l.tenant === t.key &&
            (l.msg === 'tenant install or settings changed; applied' || l.msg === 'tenant runtime started') &&
            Number(l.projects) === 1,
        ),
      ),
    { what: `${t.key} connected`, timeoutMs: 15_000 },
  );
}
