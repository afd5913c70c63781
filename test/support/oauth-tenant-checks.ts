import { expect } from 'vitest';
import type { OAuthTestApp } from './oauth-app.js';

/*
 * What an OAuth-mode test asks after an install attempt: whether the new tenant answers, and that a team with
 * no install reaches no runtime of its own.
 */

export type Where = { team_id: string; enterprise_id?: string; is_enterprise_install?: 'true' | 'false' };

/** A signed `/docs-agent help` from there, until a runtime answers it (its runtime starts as it is saved). */
export async function helpAnswer(
  app: OAuthTestApp,
  where: Where,
): Promise<{ response_type?: string; text?: string }> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const { status, body } = await app.command({ text: 'help', ...where });
    expect(status).toBe(200);
    if (body) return JSON.parse(body);
    if (Date.now() > deadline) throw new Error(`no runtime answered ${JSON.stringify(where)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** A signed command from a team with no install: acknowledged empty, said so once, no runtime of its own. */
export async function reachesNoRuntime(app: OAuthTestApp, teamId: string): Promise<void> {
  const before = app.slack.calls.length;
  const { status, body } = await app.command({ text: 'help', team_id: teamId });
  expect(status).toBe(200);
  expect(body).toBe('');
  const lines = app.logs.map((line) => JSON.parse(line) as Record<string, unknown>);
  const ignored = lines.filter((l) => (l.source as { teamId?: string } | undefined)?.teamId === teamId);
  expect(ignored.map((l) => l.msg)).toContain(
    'a request from a workspace or org without an install; acknowledged, ignored',
  );
  expect(lines.filter((l) => l.tenant === teamId)).toEqual([]);
  expect(
    app.slack.calls.slice(before).filter((c) => app.slack.oauth.tenantOf(c.authorization) === teamId),
  ).toEqual([]);
}
