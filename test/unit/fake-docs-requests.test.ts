import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FAKE_API_KEY, FAKE_PROJECT_ID, FakeDocs } from '../support/fake-docs.js';

/** Issue 45: the fake docs platform holds the bot's requests to the vendored OpenAPI specs, not only its answers. */
let docs: FakeDocs;
beforeEach(async () => {
  docs = await FakeDocs.start();
});
afterEach(async () => docs.close());

async function request(method: string, path: string, body?: unknown) {
  const response = await fetch(`${docs.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${FAKE_API_KEY}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const jobs = `/v2/agent/${FAKE_PROJECT_ID}/job`;
const views = `/v1/analytics/${FAKE_PROJECT_ID}/views`;

describe('the fake docs platform’s requests', () => {
  it('refuses a job creation whose body breaks the spec with its documented 400', async () => {
    expect(await request('POST', jobs, { instruction: 'Fix the CLI page' })).toEqual({
      status: 400,
      body: { error: "body must have required property 'prompt'" },
    });
    expect(await request('POST', jobs, { prompt: 42 })).toMatchObject({ status: 400 });
    expect(await request('POST', jobs)).toEqual({
      status: 400,
      body: { error: 'body is required' },
    });
    expect(docs.jobs.size).toBe(0);
    expect(await request('POST', jobs, { prompt: 'Fix the CLI page' })).toMatchObject({ status: 201 });
    expect(docs.requestViolations).toHaveLength(3);
  });

  it('refuses analytics queries outside their schemas, or that the operation does not take', async () => {
    const refused = await request('GET', `${views}?dateFrom=2026-01-01&limit=500&page=2`);
    expect(refused).toEqual({
      status: 400,
      body: {
        error: 'Invalid query parameters',
        details: [
          { message: 'limit must be <= 250' },
          { message: 'page is not a query parameter of GET /v1/analytics/{projectId}/views' },
        ],
      },
    });
    expect(await request('GET', `${views}?offset=x`)).toMatchObject({
      status: 400,
      body: { details: [{ message: 'offset must be integer' }] },
    });
    expect(
      await request('GET', `${views}?dateFrom=2026-01-01&dateTo=2026-01-08&limit=250&offset=0`),
    ).toMatchObject({
      status: 200,
    });
    expect(docs.contractViolations).toEqual([]);
  });
});
