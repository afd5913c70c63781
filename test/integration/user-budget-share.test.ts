import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../support/http.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/*
 * Issue 27: no single person may spend more than USER_BUDGET_SHARE percent of a project's hourly job
 * budget (default half), so one user (or one compromised account) cannot lock a team out for an hour.
 */

let app: TestApp | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

const answers = (t: TestApp) => [
  ...t.slack.responses.map((r) => JSON.stringify(r.body)),
  ...t.slack.messages.map((m) => JSON.stringify(m)),
];

describe('a person’s share of the project’s hourly job budget', () => {
  it('stops one person at half the budget (default) and leaves the rest to a teammate', async () => {
    const t = await startTestApp({ env: { AGENT_JOBS_PER_HOUR: '4' } });
    app = t;
    for (let i = 1; i <= 3; i++) await t.command({ text: `Alice's job ${i}`, user_id: 'U0ALICE' });
    await waitFor(() => (t.docs.jobs.size === 2 ? true : undefined), { what: 'two of Alice’s jobs' });
    const refusal = await waitFor(() => answers(t).find((text) => text.includes('your share')), {
      what: 'the refusal of the third',
    });
    expect(refusal).toContain('(2 of 4 jobs per hour)');
    expect(refusal).toContain('kept for your teammates');
    // Bob still has the other half.
    await t.command({ text: "Bob's job", user_id: 'U0BOB' });
    await waitFor(() => (t.docs.jobs.size === 3 ? true : undefined), { what: 'Bob’s job' });
    expect([...t.docs.jobs.values()].map((j) => j.prompts[0])).toEqual([
      "Alice's job 1",
      "Alice's job 2",
      "Bob's job",
    ]);
  });
});
