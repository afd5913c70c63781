import { describe, expect, it } from 'vitest';
import { appsOnRedis } from '../support/apps-on-redis.js';
import { FAKE_PROJECT_ID, type ViewRow } from '../support/fake-docs.js';
import type { StoredMessage } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { eventEnvelope, messageEvent } from '../support/slack-events.js';
import type { TestApp } from '../support/test-app.js';

/*
 * DOCS_CHANNEL_PROJECTS end to end, through signed requests, in both state modes: each channel's jobs are
 * created, polled, followed up and looked up in its own project; the job budget is counted per project;
 * reports read the channel's project and share the organisation's analytics budget.
 */

const CHANNEL_A = 'C0PROJA';
const CHANNEL_B = 'C0PROJB';
const OTHER_CHANNEL = 'C0ELSE';

const lab = appsOnRedis();

let run = 0;

/** A fresh pair of project ids per test (and its own Redis database: the fake's job ids restart at 1). */
function projectsOfRun() {
  run += 1;
  return { a: `proj_a_${run}`, b: `proj_b_${run}`, db: run };
}

async function boot(
  mode: 'memory' | 'Redis',
  projects: { a: string; b: string; db: number },
  env: Record<string, string> = {},
) {
  const t = await lab.start({
    env: {
      ...(mode === 'Redis' ? { REDIS_URL: `${lab.redisUrl()}/${projects.db}` } : {}),
      DOCS_CHANNEL_PROJECTS: `${CHANNEL_A}=${projects.a},${CHANNEL_B}=${projects.b}`,
      ...env,
    },
  });
  t.docs.projects.add(projects.a);
  t.docs.projects.add(projects.b);
  return t;
}

/** `/docs-agent <text>` in a channel; resolves the job the platform created and its card once tracked. */
async function startJobIn(t: TestApp, channel: string, text: string) {
  const before = new Set(t.docs.jobs.keys());
  await t.command({ text, channel_id: channel });
  const job = await waitFor(() => [...t.docs.jobs.values()].find((j) => !before.has(j.id)), {
    what: `job created from ${channel}`,
  });
  const card = await waitFor(
    () =>
      t.slack.messages.find(
        (m) => m.channel === channel && !m.thread_ts && JSON.stringify(m.blocks).includes(job.id),
      ),
    { what: `card of ${job.id} tracked` },
  );
  return { job, card };
}

function botReplies(t: TestApp, channel: string, threadTs: string): StoredMessage[] {
  return t.slack.threadReplies(channel, threadTs).filter((m) => m.bot_id);
}

async function responseAt(t: TestApp, index: number) {
  const response = await waitFor(() => t.slack.responses[index], { what: `response ${index}` });
  return response.body as { text?: string; blocks?: unknown[] };
}

const textOf = (body: { text?: string; blocks?: unknown[] }) =>
  `${body.text ?? ''}${JSON.stringify(body.blocks ?? [])}`;

describe.each(['memory', 'Redis'] as const)('several docs projects (%s mode)', (mode) => {
  it("creates, polls, follows up and reports each channel's job in its own project", async () => {
    const projects = projectsOfRun();
    const t = await boot(mode, projects);

    const a = await startJobIn(t, CHANNEL_A, 'Document the retry settings');
    const b = await startJobIn(t, CHANNEL_B, 'Document the webhooks');
    expect(a.job.project).toBe(projects.a);
    expect(b.job.project).toBe(projects.b);
    expect(t.docs.requestsTo('POST', new RegExp(`^/v2/agent/${projects.a}/job$`))).toHaveLength(1);
    expect(t.docs.requestsTo('POST', new RegExp(`^/v2/agent/${projects.b}/job$`))).toHaveLength(1);
    // No project id on a card (issue 46): its channel says where it is; `/docs-agent status` names it.
    expect(JSON.stringify(a.card.blocks)).not.toContain(projects.a);
    expect(JSON.stringify(b.card.blocks)).not.toContain(projects.b);

    // Polls address the job's project (the fake answers 404 for a job asked in another project).
    await waitFor(
      () => t.docs.requestsTo('GET', new RegExp(`^/v2/agent/${projects.a}/job/${a.job.id}$`))[0],
      {
        what: 'A polled in project A',
      },
    );
    await waitFor(
      () => t.docs.requestsTo('GET', new RegExp(`^/v2/agent/${projects.b}/job/${b.job.id}$`))[0],
      {
        what: 'B polled in project B',
      },
    );

    // Both finish: each thread gets its pull request.
    t.docs.complete(a.job.id, 'https://github.com/acme/docs/pull/501');
    t.docs.complete(b.job.id, 'https://github.com/acme/docs/pull/502');
    await waitFor(
      () => botReplies(t, CHANNEL_A, a.card.ts).find((m) => JSON.stringify(m).includes('/pull/501')),
      {
        what: 'PR reply in A',
      },
    );
    await waitFor(
      () => botReplies(t, CHANNEL_B, b.card.ts).find((m) => JSON.stringify(m).includes('/pull/502')),
      {
        what: 'PR reply in B',
      },
    );

    // A follow-up in B's thread goes to project B (and B works again).
    await t.event(
      eventEnvelope(
        messageEvent({ user: 'U0ALICE', channel: CHANNEL_B, thread_ts: b.card.ts, text: 'Add retries too' }),
      ),
    );
    await waitFor(() => (b.job.prompts.length > 1 ? true : undefined), { what: 'follow-up reached B' });
    expect(
      t.docs.requestsTo('POST', new RegExp(`^/v2/agent/${projects.b}/job/${b.job.id}/message$`)),
    ).toHaveLength(1);

    // `status` of B's job asked from channel A: the record's project decides, and the answer names it.
    await t.command({ text: `status ${b.job.id}`, channel_id: CHANNEL_A });
    const status = textOf(await responseAt(t, 0));
    expect(status).toContain('/pull/502');
    expect(status).toContain(projects.b);

    // Nothing reached the default project.
    expect(t.docs.requestsTo('GET', new RegExp(`^/v2/agent/${FAKE_PROJECT_ID}/`))).toHaveLength(0);
    expect(t.docs.requestsTo('POST', new RegExp(`^/v2/agent/${FAKE_PROJECT_ID}/`))).toHaveLength(0);
  });

  it('calls a project with its own admin key when DOCS_CHANNEL_PROJECTS names one', async () => {
    const projects = projectsOfRun();
    const keyB = 'svc_project_b_own_key_0123456789abcdef';
    const t = await boot('memory', projects, {
      DOCS_CHANNEL_PROJECTS: `${CHANNEL_A}=${projects.a},${CHANNEL_B}=${projects.b}:${keyB}`,
    });
    t.docs.projectKeys.set(projects.b, keyB);
    const { job: jobB } = await startJobIn(t, CHANNEL_B, 'Document project B');
    const { job: jobA } = await startJobIn(t, CHANNEL_A, 'Document project A');
    expect(jobB.project).toBe(projects.b);
    expect(jobA.project).toBe(projects.a);
    const auth = (project: string) =>
      new Set(t.docs.requests.filter((r) => r.path.includes(`/${project}/`)).map((r) => r.authorization));
    expect([...auth(projects.b)]).toEqual([`Bearer ${keyB}`]);
    expect([...auth(projects.a)]).not.toContain(`Bearer ${keyB}`);
    // The key never reaches a log line.
    expect(JSON.stringify(t.logs)).not.toContain(keyB);
  });

  it('counts the job budget per project: A used up, B still starts', async () => {
    const projects = projectsOfRun();
    const t = await boot(mode, projects, { AGENT_JOBS_PER_HOUR: '1' });
    await startJobIn(t, CHANNEL_A, 'First job in A');

    await t.command({ text: 'Second job in A', channel_id: CHANNEL_A });
    const refused = await waitFor(
      () =>
        t.slack.messages.find(
          (m) => m.channel === CHANNEL_A && JSON.stringify(m.blocks).includes('Not started'),
        ),
      { what: 'second job in A refused' },
    );
    expect(JSON.stringify(refused.blocks)).toMatch(/hour/i);

    const b = await startJobIn(t, CHANNEL_B, 'First job in B');
    expect(b.job.project).toBe(projects.b);
    expect([...t.docs.jobs.values()].map((j) => j.project).sort()).toEqual([projects.a, projects.b]);
  });

  it("reads page views of the channel's project, and tells which project a channel uses", async () => {
    const projects = projectsOfRun();
    const t = await boot(mode, projects);
    const rowsA: ViewRow[] = [{ path: '/docs/only-in-a', human: 90, ai: 10, total: 100 }];
    const rowsB: ViewRow[] = [{ path: '/docs/only-in-b', human: 40, ai: 2, total: 42 }];
    t.docs.viewsByProject.set(projects.a, rowsA);
    t.docs.viewsByProject.set(projects.b, rowsB);

    await t.command({ command: '/docs-views', text: 'top 5', channel_id: CHANNEL_A });
    const reportA = textOf(await responseAt(t, 0));
    expect(reportA).toContain('/docs/only-in-a');
    expect(reportA).not.toContain('/docs/only-in-b');
    expect(reportA).toContain(`Page views · ${projects.a}`);

    await t.command({ command: '/docs-views', text: 'top 5', channel_id: CHANNEL_B });
    const reportB = textOf(await responseAt(t, 1));
    expect(reportB).toContain('/docs/only-in-b');
    expect(reportB).toContain(`Page views · ${projects.b}`);
    expect(
      t.docs.requestsTo('GET', new RegExp(`^/v1/analytics/${projects.b}/views$`)).length,
    ).toBeGreaterThan(0);

    const told = await t.command({ text: 'project', channel_id: CHANNEL_A });
    expect(told.body).toContain(`\`${projects.a}\``);
    expect(told.body).toContain('set for this channel');
    expect(told.body).not.toContain('DOCS_CHANNEL_PROJECTS');
    const other = await t.command({ text: 'project', channel_id: OTHER_CHANNEL });
    expect(other.body).toContain(`\`${FAKE_PROJECT_ID}\``);
    expect(other.body).toContain('default');
  });
});

describe('several docs projects share one analytics budget', () => {
  it('refuses a report in B once A spent the organisation budget', async () => {
    const projects = projectsOfRun();
    // One report costs two requests (the range and the previous period's totals).
    const t = await boot('memory', projects, { ANALYTICS_HOURLY_BUDGET: '2' });
    t.docs.viewsByProject.set(projects.a, [{ path: '/docs/a', human: 1, ai: 0, total: 1 }]);
    await t.command({ command: '/docs-views', text: 'top 5', channel_id: CHANNEL_A });
    expect(textOf(await responseAt(t, 0))).toContain('/docs/a');

    await t.command({ command: '/docs-views', text: 'top 5', channel_id: CHANNEL_B });
    expect(textOf(await responseAt(t, 1))).toMatch(/analytics budget/i);
    expect(t.docs.requestsTo('GET', new RegExp(`^/v1/analytics/${projects.b}/`))).toHaveLength(0);
  });
});
