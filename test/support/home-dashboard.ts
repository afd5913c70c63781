/**
 * Home as a dashboard over signed requests (test/integration/home-this-week.test.ts, home-reports-access.test.ts):
 * the fake platform's seed, opening Home, pressing its buttons and reading the modals they open.
 */
import { expect } from 'vitest';
import { makeFeedback, makeSearches } from './fake-docs-health.js';
import { makeViewRows } from './fake-docs-views.js';
import { waitFor } from './http.js';
import { appHomeOpenedEnvelope, blockActionsPayload } from './slack-interactions.js';
import type { TestApp } from './test-app.js';

export type Json = Record<string, unknown>;
export const USER = 'U0ALICE';
export const analyticsRequests = (t: TestApp) => t.docs.requestsTo('GET', /^\/v1\/analytics\//);
export const publishes = (t: TestApp) =>
  t.slack.callsOf('views.publish').filter((c) => c.args.user_id === USER);
export const json = (value: unknown) => JSON.stringify(value);

export function seed(t: TestApp): void {
  t.docs.defaultViews = makeViewRows(12);
  t.docs.health.defaults = {
    searches: makeSearches(8),
    pages: [{ path: '/guides/auth', thumbsUp: 1, thumbsDown: 2, code: 0, total: 3 }],
    feedback: makeFeedback('/guides/auth', ['The token example is wrong']),
    conversations: [],
  };
}

export async function openHome(t: TestApp): Promise<string> {
  const before = publishes(t).length;
  expect((await t.event(appHomeOpenedEnvelope({ userId: USER }))).status).toBe(200);
  await waitFor(() => publishes(t).length > before || undefined, { what: 'Home published' });
  return json(t.slack.surfaces.homeOf(USER));
}

/** Clicks a Home button; resolves the modal it opened (the newest one). */
export async function press(
  t: TestApp,
  actionId: string,
  value?: string,
): Promise<{ id: string; view: Json }> {
  const opened = t.slack.callsOf('views.open').length;
  const response = await t.interaction(
    blockActionsPayload({
      userId: USER,
      triggerId: t.slack.surfaces.mintTriggerId(USER),
      action: { action_id: actionId, ...(value === undefined ? {} : { value }) },
      container: { type: 'view', view: t.slack.surfaces.homeOf(USER) ?? {} },
    }),
  );
  expect(response.status).toBe(200);
  await waitFor(() => t.slack.callsOf('views.open').length > opened || undefined, { what: 'modal opened' });
  const modal = [...t.slack.surfaces.modals.values()].at(-1)!;
  // What the modal opened with: by now a quick report may already have replaced it (views.update).
  const sent = t.slack.callsOf('views.open')[opened]!.args.view;
  return { id: modal.id, view: (typeof sent === 'string' ? JSON.parse(sent) : sent) as Json };
}

/** The modal once `views.update` replaced its loading state. */
export function updated(t: TestApp, id: string): Promise<string> {
  return waitFor(() => t.slack.callsOf('views.update').some((c) => c.args.view_id === id) || undefined, {
    what: 'modal updated',
  }).then(() => json(t.slack.surfaces.modals.get(id)?.view));
}

/** The Fix button's value on Home's "This week" row. */
export function fixValue(home: string): string {
  const blocks = (
    JSON.parse(home) as { blocks: Array<{ accessory?: { action_id?: string; value?: string } }> }
  ).blocks;
  const value = blocks.find((b) => b.accessory?.action_id === 'home_health_fix')?.accessory?.value;
  expect(value).toBeDefined();
  return value!;
}
