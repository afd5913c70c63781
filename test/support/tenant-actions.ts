import { expect } from 'vitest';
import type { BotProcess } from './bot-process.js';
import type { FakeDocs, FakeJob } from './fake-docs.js';
import type { FakeSlack, StoredMessage } from './fake-slack.js';
import { waitFor } from './http.js';
import { cardIn, jobWithPrompt } from './process-helpers.js';
import { eventEnvelope, type MessageFields, messageEvent } from './slack-events.js';
import { asTenant, markersIn, TENANTS, type TestTenant } from './tenant-bots.js';

/* What a person in a tenant's workspace does, sent to one replica; and the checks that nothing crossed over. */

/** A signed slash command from the tenant's workspace (and org); its response_url is named `<MARKER>-<id>`. */
export function tenantCommand(
  via: BotProcess,
  slack: FakeSlack,
  t: TestTenant,
  text: string,
  { channel = t.channel(1), command = '/docs-agent', reply = 'cmd' } = {},
) {
  return via.command({
    command,
    text,
    channel_id: channel,
    user_id: t.user,
    team_id: t.teamId,
    ...(t.enterpriseId ? { enterprise_id: t.enterpriseId } : {}),
    is_enterprise_install: t.install.isEnterpriseInstall ? 'true' : 'false',
    response_url: slack.responseUrl(`${t.marker}-${reply}`),
  });
}

/** A message event (a mention, a thread reply) from the tenant's person, as Slack delivers it to the app. */
export function tenantMessage(via: BotProcess, t: TestTenant, fields: MessageFields) {
  return via.event(asTenant(eventEnvelope(messageEvent({ user: t.user, ...fields })), t));
}

/** The bot user of the tenant's install (mentions name it). */
export function botUserOf(slack: FakeSlack, t: TestTenant): string {
  const bot = slack.oauth.tenants.get(t.key)?.botUserId;
  if (!bot) throw new Error(`${t.key} is not installed`);
  return bot;
}

/** A job started with `/docs-agent <prompt>` in `channel`: the platform's job and the card in Slack. */
export async function commandJob(
  via: BotProcess,
  slack: FakeSlack,
  docs: FakeDocs,
  t: TestTenant,
  channel: string,
  prompt: string,
): Promise<{ job: FakeJob; card: StoredMessage }> {
  const ack = await tenantCommand(via, slack, t, prompt, { channel });
  expect(ack.status).toBe(200);
  const job = await waitFor(() => jobWithPrompt(docs, prompt), {
    what: `job "${prompt}"`,
    timeoutMs: 10_000,
  });
  const card = await waitFor(() => cardIn(slack, channel), { what: `card in ${channel}`, timeoutMs: 10_000 });
  return { job, card };
}

/** The answer posted to a command's response_url (`<MARKER>-<id>`), once it came. */
export function responseTo(slack: FakeSlack, t: TestTenant, id: string, timeoutMs = 10_000) {
  return waitFor(() => slack.responses.findLast((r) => r.path === `/response/${t.marker}-${id}`)?.body, {
    what: `answer ${t.marker}-${id}`,
    timeoutMs,
  });
}

const markerOfTenant = (key: string | undefined) => TENANTS.find((t) => t.key === key)?.marker;

/**
 * Every Slack call was made with a token Slack issued to a tenant, and holds no other tenant's data (ids,
 * channels, users, prompts, pages); every answer to a response_url only its own tenant's; every docs call
 * the key of the project it names, which is a tenant's own. Resolves the calls per tenant.
 */
export function expectEverythingInItsTenant(slack: FakeSlack, docs: FakeDocs): Map<string, number> {
  const perTenant = new Map<string, number>();
  for (const call of slack.calls) {
    if (call.method === 'oauth.v2.access') continue;
    const tenant = slack.oauth.tenantOf(call.authorization, call.args);
    const { token: _token, ...args } = call.args;
    const marker = markerOfTenant(tenant);
    expect(marker, `${call.method} with a token of no tenant`).toBeDefined();
    const sent = JSON.stringify(args);
    for (const seen of markersIn(sent))
      expect(
        seen,
        `${call.method} with ${tenant}'s token carries ${seen}'s data: ${sent.slice(0, 400)}`,
      ).toBe(marker);
    perTenant.set(tenant ?? '?', (perTenant.get(tenant ?? '?') ?? 0) + 1);
  }
  for (const { path, body } of slack.responses) {
    const [owner] = markersIn(path);
    for (const seen of markersIn(JSON.stringify(body)))
      expect(seen, `answer at ${path} carries ${seen}'s data`).toBe(owner);
  }
  for (const request of docs.requests) {
    const project = /^\/v[12]\/(?:agent|analytics)\/([^/]+)/.exec(request.path)?.[1];
    if (!project) continue;
    const keyOwner = TENANTS.find((t) => request.authorization === `Bearer ${t.apiKey}`);
    expect(keyOwner?.project, `${request.method} ${request.path} with another key`).toBe(project);
  }
  // Each job the platform holds was asked for in the tenant whose project it is in.
  for (const job of docs.jobs.values()) {
    const owner = TENANTS.find((t) => t.project === job.project)?.marker;
    for (const seen of markersIn(job.prompts.join('\n')))
      expect(seen, `${job.id} in ${job.project} asked for by ${seen}`).toBe(owner);
  }
  return perTenant;
}

/** p50 and max of a list of durations (ms), rounded. */
export function spread(ms: number[]): { p50: number; max: number; n: number } {
  const sorted = [...ms].sort((x, y) => x - y);
  return {
    p50: Math.round(sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN),
    max: Math.round(sorted.at(-1) ?? Number.NaN),
    n: sorted.length,
  };
}

/** Time from sending `/docs-agent <prompt>` to its card in Slack (what the person sees as the reply). */
export async function commandToCard(
  via: BotProcess,
  slack: FakeSlack,
  t: TestTenant,
  channel: string,
  prompt: string,
): Promise<number> {
  const started = performance.now();
  const ack = await tenantCommand(via, slack, t, prompt, { channel });
  expect(ack.status).toBe(200);
  await waitFor(() => cardIn(slack, channel), { what: `card in ${channel}`, timeoutMs: 15_000 });
  return performance.now() - started;
}
