import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BotProcess } from '../support/bot-process.js';
import type { FakeDocs, FakeJob } from '../support/fake-docs.js';
import type { FakeSlack, StoredMessage } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { sleep, terminalReplies } from '../support/process-helpers.js';
import { nextMessageTs } from '../support/slack-events.js';
import { appHomeOpenedEnvelope, feedbackClickPayload } from '../support/slack-interactions.js';
import {
  botUserOf,
  commandJob,
  expectEverythingInItsTenant,
  responseTo,
  tenantCommand,
  tenantMessage,
} from '../support/tenant-actions.js';
import { ALPHA, asTenant, BETA, DELTA, GRID, INSTALLED, installThrough } from '../support/tenant-bots.js';
import { connectThroughModal } from '../support/tenant-connect.js';
import {
  BETA_ADMIN,
  startTenantReplicas,
  stopTenantReplicas,
  type TenantReplicas,
} from '../support/tenant-replicas.js';

/*
 * Issue 27's process-level guarantees for OAuth mode: two real bot processes (replicas a and b) on one
 * redis-server, a fake Slack that issues a token per install, a fake docs platform where each project opens
 * only with its own key. Two workspaces (ALPHA, BETA) and an Enterprise Grid org installed org-wide (GRID,
 * its requests coming from its workspace T0GRIDWS) are installed through the real OAuth flow on replica a.
 */

let r: TenantReplicas;
let slack: FakeSlack;
let docs: FakeDocs;
let a: BotProcess;
let b: BotProcess;
const replica = (n: number) => r.replica(n);
const jobs = new Map<
  string,
  { job: FakeJob; card: StoredMessage; mention: { job: FakeJob; card: StoredMessage } }
>();

/** The next whole minute at least 30 s away (UTC): when the weekly posts scheduled below are due. */
const weeklyAt = (() => {
  const due = new Date(Math.ceil((Date.now() + 30_000) / 60_000) * 60_000);
  const days = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
  const time = `${String(due.getUTCHours()).padStart(2, '0')}:${String(due.getUTCMinutes()).padStart(2, '0')}`;
  return { day: days[due.getUTCDay()], time, due: due.getTime() };
})();

beforeAll(async () => {
  r = await startTenantReplicas();
  ({ slack, docs, a, b } = r);
}, 120_000);

afterAll(() => stopTenantReplicas(r, 'tenants'), 30_000);

describe('OAuth mode with two replicas: each tenant sealed off', () => {
  it('jobs, mentions, follow-ups, list, status, Home and reports each stay in their tenant', async () => {
    for (const [i, t] of INSTALLED.entries()) {
      // A weekly post in channel 3, due at the next whole minute (checked in the last test).
      await tenantCommand(replica(i), slack, t, `schedule ${weeklyAt.day} ${weeklyAt.time} UTC`, {
        command: '/docs-views',
        channel: t.channel(3),
        reply: 'schedule',
      });
      expect(JSON.stringify(await responseTo(slack, t, 'schedule'))).not.toMatch(/can't|cannot|not allowed/i);
      docs.viewsByProject.set(t.project, [
        { path: `/${t.marker}/getting-started`, human: 40, ai: 2, total: 42 },
        { path: `/${t.marker}/api`, human: 10, ai: 5, total: 15 },
      ]);
      const started = await commandJob(
        replica(i),
        slack,
        docs,
        t,
        t.channel(1),
        `${t.marker}: document widgets`,
      );
      const mentioned = `${t.marker}: document gadgets`;
      const mentionTs = nextMessageTs();
      const ack = await tenantMessage(replica(i + 1), t, {
        type: 'app_mention',
        ts: mentionTs,
        channel: t.channel(2),
        text: `<@${botUserOf(slack, t)}> ${mentioned}`,
      });
      expect(ack.status).toBe(200);
      const mentionJob = await waitFor(
        () => [...docs.jobs.values()].find((j) => j.prompts[0]?.includes(mentioned)),
        {
          what: `${t.marker} mention job`,
          timeoutMs: 10_000,
        },
      );
      // The card answers in the mention's thread.
      const mentionCard = await waitFor(() => slack.messages.find((m) => m.thread_ts === mentionTs), {
        what: `${t.marker} mention card`,
      });
      jobs.set(t.key, { ...started, mention: { job: mentionJob, card: { ...mentionCard, ts: mentionTs } } });
      expect(started.job.project).toBe(t.project);
      expect(mentionJob.project).toBe(t.project);

      // A follow-up in the job's thread, through the other replica.
      const before = docs.requests.length;
      await tenantMessage(replica(i + 1), t, {
        channel: t.channel(1),
        thread_ts: started.card.ts,
        text: `${t.marker}: also the gizmos`,
      });
      await waitFor(() => started.job.prompts.length === 2, { what: `${t.marker} follow-up` });
      // Polled running again (a job finishing right after a follow-up reads as stale for 30 s, by design).
      const polls = () =>
        docs.requests.slice(before).filter((q) => q.method === 'GET' && q.path.endsWith(started.job.id));
      await waitFor(() => polls().length >= 3, { what: `${t.marker} polled after the follow-up` });

      await tenantCommand(replica(i), slack, t, 'list', { reply: 'list' });
      const list = JSON.stringify(await responseTo(slack, t, 'list'));
      expect(list).toContain(started.job.id);
      await tenantCommand(replica(i + 1), slack, t, `status ${started.job.id}`, { reply: 'status' });
      const status = JSON.stringify(await responseTo(slack, t, 'status'));
      expect(status).toContain(started.job.id);
      expect(status).not.toContain('No job');

      await replica(i).event(
        asTenant(appHomeOpenedEnvelope({ userId: t.user, channelId: `D0${t.marker}` }), t),
      );
      await slack.waitForCall('views.publish', (c) => c.args.user_id === t.user, 10_000);

      await tenantCommand(replica(i + 1), slack, t, 'top 5', { command: '/docs-views', reply: 'views' });
      expect(JSON.stringify(await responseTo(slack, t, 'views'))).toContain(`/${t.marker}/getting-started`);
    }

    // Every job finishes upstream: each PR link lands once, in its own thread, with its tenant's token.
    for (const { job, mention } of jobs.values()) {
      docs.complete(job.id, `https://github.com/acme/docs/pull/${job.id.slice(4)}`);
      docs.complete(mention.job.id, `https://github.com/acme/docs/pull/${mention.job.id.slice(4)}`);
    }
    for (const { card, mention } of jobs.values()) {
      for (const c of [card, mention.card])
        await waitFor(() => terminalReplies(slack, c).length > 0, {
          what: `PR reply in ${c.channel}`,
          timeoutMs: 15_000,
        });
    }
    await sleep(1_500);
    for (const { card, mention } of jobs.values()) {
      expect(terminalReplies(slack, card)).toHaveLength(1);
      expect(terminalReplies(slack, mention.card)).toHaveLength(1);
    }
    const perTenant = expectEverythingInItsTenant(slack, docs);
    for (const t of INSTALLED) expect(perTenant.get(t.key) ?? 0).toBeGreaterThan(5);
    // Both replicas started jobs for every tenant (the command on one, the mention on the other).
    for (const p of [a, b])
      for (const t of INSTALLED)
        expect(p.logs.some((l) => l.tenant === t.key && l.msg === 'agent job created')).toBe(true);
    console.log('Slack calls per tenant', Object.fromEntries(perTenant), 'docs calls', docs.requests.length);
  }, 120_000);
});

describe('cross-tenant ids', () => {
  it("a job id, a `status <id>` and a button value of ALPHA's are not found in BETA", async () => {
    const alpha = jobs.get(ALPHA.key)!;
    const beta = jobs.get(BETA.key)!;
    // A person of BETA gets what any id unknown there gets; BETA's admin, the platform's answer in BETA's project.
    await tenantCommand(b, slack, BETA, `status ${alpha.job.id}`, { reply: 'xstatus' });
    await tenantCommand(a, slack, BETA, 'status job_9999', { reply: 'unknown' });
    const status = JSON.stringify(await responseTo(slack, BETA, 'xstatus'));
    const unknown = JSON.stringify(await responseTo(slack, BETA, 'unknown'));
    expect(status).toBe(unknown.replaceAll('job_9999', alpha.job.id));
    await b.command({
      text: `status ${alpha.job.id}`,
      channel_id: BETA.channel(1),
      user_id: BETA_ADMIN,
      team_id: BETA.teamId,
      response_url: slack.responseUrl(`${BETA.marker}-xadmin`),
    });
    const admin = JSON.stringify(await responseTo(slack, BETA, 'xadmin'));
    expect(admin).toContain(`No job \`${alpha.job.id}\` exists in this docs project`);

    // The feedback button on ALPHA's PR reply, clicked (its value replayed) in BETA's thread.
    const [alphaReply] = terminalReplies(slack, alpha.card);
    const [betaReply] = terminalReplies(slack, beta.card);
    const buttons = JSON.stringify(alphaReply?.blocks);
    const value = /"value":"(useful:[^"]+)"/.exec(buttons)?.[1];
    expect(value).toBe(`useful:${alpha.job.id}`);
    const click = feedbackClickPayload({
      value: value!,
      userId: BETA.user,
      channelId: BETA.channel(1),
      messageTs: betaReply!.ts,
      threadTs: beta.card.ts,
      responseUrl: slack.responseUrl(`${BETA.marker}-xbutton`),
    });
    expect((await a.interaction(asTenant(click, BETA))).status).toBe(200);
    expect(JSON.stringify(await responseTo(slack, BETA, 'xbutton'))).toContain('I no longer know this job');

    // ALPHA's job id as a thread in BETA: a reply there is no follow-up of ALPHA's job.
    // The platform refuses ALPHA's job to BETA's key (what makes the key check above mean something).
    const peek = await fetch(`${docs.url}/v2/agent/${ALPHA.project}/job/${alpha.job.id}`, {
      headers: { authorization: `Bearer ${BETA.apiKey}` },
    });
    expect(peek.status).toBe(401);
    await peek.body?.cancel();
    // The probe is the test's, not the bot's: out of the record the checks read.
    docs.requests.splice(
      docs.requests.findLastIndex(
        (q) => q.authorization === `Bearer ${BETA.apiKey}` && q.path.includes(alpha.job.id),
      ),
      1,
    );

    const prompts = alpha.job.prompts.length;
    await tenantMessage(a, BETA, {
      channel: BETA.channel(1),
      thread_ts: alpha.card.ts,
      text: 'BETA: take over',
    });
    await sleep(1_500);
    expect(alpha.job.prompts).toHaveLength(prompts);
    expectEverythingInItsTenant(slack, docs);
  }, 60_000);
});

describe('Enterprise Grid', () => {
  it("an event from another workspace of the org is served with the org's token", async () => {
    slack.userTeams.set('U0GRID2', 'T0GRIDWS2');
    slack.userEnterprises.set('U0GRID2', GRID.key); // a person of the org, as users.info tells
    const other = { ...GRID, teamId: 'T0GRIDWS2', user: 'U0GRID2' };
    await b.event(asTenant(appHomeOpenedEnvelope({ userId: other.user, channelId: 'D0GRID2' }), other));
    const publish = await slack.waitForCall('views.publish', (c) => c.args.user_id === other.user, 10_000);
    expect(slack.oauth.tenantOf(publish.authorization, publish.args)).toBe(GRID.key);
    expect(publish.authorization).toBe(`Bearer ${slack.oauth.liveToken(GRID.key)}`);
  }, 30_000);
});

describe('weekly posts', () => {
  it("each tenant's weekly post goes out once, with its token, whichever replica runs it", async () => {
    for (const t of INSTALLED)
      await waitFor(() => slack.messages.find((m) => m.channel === t.channel(3)), {
        what: `${t.marker}'s weekly post`,
        timeoutMs: Math.max(10_000, weeklyAt.due - Date.now() + 30_000),
      });
    await sleep(2_000);
    for (const t of INSTALLED) {
      const posts = slack.messages.filter((m) => m.channel === t.channel(3) && !m.thread_ts);
      expect(posts).toHaveLength(1);
      expect(JSON.stringify(posts[0])).toContain(`/${t.marker}/getting-started`);
    }
    expectEverythingInItsTenant(slack, docs);
  }, 150_000);
});

describe('a new install', () => {
  it('the first request on the other replica, right after the install, is served (its runtime built and started first)', async () => {
    await installThrough(a, slack, DELTA);
    expect((await connectThroughModal(a, slack, DELTA)).body).toBe('');
    // Replica b has not synced yet (every 2 s): the request itself makes b build DELTA's runtime.
    const { job } = await commandJob(b, slack, docs, DELTA, DELTA.channel(1), 'DELTA: first words');
    expect(job.project).toBe(DELTA.project);
    expect(slack.responses.filter((x) => x.path === '/response/DELTA-cmd')).toEqual([]);
    expect(b.logs.some((l) => l.tenant === DELTA.key && l.outcome === 'state_unavailable')).toBe(false);
    expectEverythingInItsTenant(slack, docs);
  }, 60_000);
});
