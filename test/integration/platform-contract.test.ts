import { afterEach, describe, expect, it } from 'vitest';
import { localDate } from '../../src/insights/ranges/dates.js';
import { FAKE_API_KEY, FakeDocs } from '../support/fake-docs.js';
import { waitFor } from '../support/http.js';
import { contractViolation } from '../support/openapi-contract.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

const VIEWS = '/v1/analytics/proj_x/views';
const JOB = '/v2/agent/proj_x/job/job_1';

describe('the published specs as the fake docs platform contract', () => {
  it('allows what the specs allow: missing optional fields, nulls, fractions, extra fields', () => {
    for (const job of [
      {},
      { id: 'job_1', status: 'active' },
      { id: 'job_1', status: 'completed', source: { repository: 'https://github.com/a/b', ref: null } },
      { id: 'job_1', status: 'archived', archivedAt: null, prLink: null, surprise: { nested: true } },
      {
        id: 'job_1',
        status: 'completed',
        prLink: 'https://github.com/a/b/pull/1',
        createdAt: '2026-01-01T00:00:00Z',
      },
    ]) {
      expect(contractViolation('GET', JOB, 200, job)).toBeUndefined();
    }
    const views = {
      totals: { human: 1.5, ai: 0.25, total: 1.75 },
      views: [{ path: '/a', human: 1.5, ai: 0.25, total: 1.75, extra: 'x' }],
      hasMore: false,
      cursor: null,
    };
    expect(contractViolation('GET', VIEWS, 200, views)).toBeUndefined();
    expect(
      contractViolation('GET', VIEWS, 400, { error: 'bad', details: [{ message: 'm' }] }),
    ).toBeUndefined();
  });

  it('refuses what the specs do not allow', () => {
    expect(contractViolation('GET', JOB, 200, { id: 'job_1', status: 'running' })).toMatch(/status/);
    expect(contractViolation('GET', JOB, 200, { id: 'job_1', prLink: 'not a url' })).toMatch(/prLink/);
    expect(contractViolation('GET', JOB, 200, { id: 'job_1', createdAt: null })).toMatch(/createdAt/);
    expect(
      contractViolation('GET', VIEWS, 200, { totals: { human: 1, ai: 0, total: 1 }, views: [] }),
    ).toMatch(/hasMore/);
    expect(
      contractViolation('GET', VIEWS, 200, {
        totals: { human: '1', ai: 0, total: 1 },
        views: [],
        hasMore: false,
      }),
    ).toMatch(/totals\/human/);
    expect(contractViolation('GET', VIEWS, 429, { error: 'slow down' })).toMatch(/does not document/);
    expect(contractViolation('POST', '/v2/agent/proj_x/job', 200, { id: 'job_1' })).toMatch(
      /does not document/,
    );
    expect(contractViolation('GET', JOB, 401, { message: 'no error field' })).toBeUndefined();
    expect(contractViolation('GET', VIEWS, 401, { message: 'no error field' })).toMatch(/error/);
  });

  it('makes a drifting fake fail the test: the answer is a 500 and close() throws', async () => {
    const docs = await FakeDocs.start();
    docs.addJob('job_1', 'x');
    docs.reshape.job = (job) => ({ ...job, status: 'running' });
    const response = await fetch(`${docs.url}/v2/agent/proj_acme_docs/job/job_1`, {
      headers: { authorization: `Bearer ${FAKE_API_KEY}` },
    });
    expect(response.status).toBe(500);
    expect(docs.contractViolations).toHaveLength(1);
    await expect(docs.close()).rejects.toThrow(/outside the published specs/);
  });
});

describe('the bot against spec-allowed variations of the platform', () => {
  it('follows a job whose answers omit optional fields, add unknown ones and carry nulls', async () => {
    app = await startTestApp();
    const t = app;
    // No model, no createdAt, no source.ref key at all, an explicit null archivedAt, and fields from the future.
    t.docs.reshape.job = (job) => {
      const {
        model: _model,
        createdAt: _createdAt,
        source,
        ...rest
      } = job as Record<string, unknown> & {
        source: { repository: string; ref: string | null };
      };
      return {
        ...rest,
        source: source.ref === null ? { repository: source.repository } : source,
        archivedAt: null,
        priority: 3,
        labels: ['docs'],
      };
    };
    await t.command({ text: 'Document the pagination of the views API' });
    const job = await waitFor(() => (t.docs.jobs.size === 1 ? t.docs.onlyJob : undefined), {
      what: 'job created',
    });
    const card = await waitFor(() => t.slack.messages.find((m) => !m.thread_ts), { what: 'card' });
    t.docs.complete(job.id, 'https://github.com/acme/docs/pull/7');
    const reply = await waitFor(() => t.slack.threadReplies(card.channel, card.ts)[0], {
      what: 'terminal reply',
    });
    expect(reply.text).toContain('https://github.com/acme/docs/pull/7');
    expect(t.docs.contractViolations).toEqual([]);
  });

  it('reports fractional page-view counts, rounded, instead of "analytics I could not read"', async () => {
    app = await startTestApp();
    const today = localDate(Date.now(), 'UTC');
    app.docs.defaultViews = [
      { path: '/docs/a', human: 1200.4, ai: 300.35, total: 1500.75 },
      { path: '/docs/b', human: 10.5, ai: 0, total: 10.5 },
    ];
    app.docs.reshape.views = (body) => ({ ...body, generatedAt: `${today}T00:00:00Z` });
    await app.command({ command: '/docs-views', text: 'top 5' });
    const response = await waitFor(() => app!.slack.responses[0], { what: 'report' });
    const blocks = JSON.stringify((response.body as { blocks?: unknown }).blocks);
    expect(blocks).toContain('*Total views*\\n1,511');
    expect(blocks).toContain('/docs/a');
    // The top page's cell in the table: 1,500.75 shown rounded.
    expect(blocks).toContain('"value":1501,"text":"1,501"');
    expect(blocks).not.toMatch(/1,500\.75|1500\.75/);
  });
});
