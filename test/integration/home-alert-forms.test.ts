import { afterEach, describe, expect, it } from 'vitest';
import {
  ALERT_CHANNEL_BLOCK,
  HOME_ALERT_ADD_ACTION,
  HOME_ALERT_MENU_ACTION,
} from '../../src/slack/messages/home-alerts-form.js';
import { waitFor } from '../support/http.js';
import { eventEnvelope } from '../support/slack-events.js';
import {
  blockActionsPayload,
  type StateValue,
  viewSubmissionPayload,
} from '../support/slack-interactions.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

type Json = Record<string, unknown>;
const ALICE = 'U0ALICE';

let app: TestApp | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

const homeText = (t: TestApp) => JSON.stringify(t.slack.surfaces.homeOf(ALICE)) ?? '';

async function click(t: TestApp, action: { action_id: string; selected?: string }): Promise<Json> {
  const triggerId = t.slack.surfaces.mintTriggerId(ALICE);
  await t.interaction(
    blockActionsPayload({
      userId: ALICE,
      triggerId,
      action,
      container: { type: 'view', view: { type: 'home' } },
    }),
  );
  const opened = await t.slack.waitForCall('views.open', (c) => c.args.trigger_id === triggerId);
  return (typeof opened.args.view === 'string' ? JSON.parse(opened.args.view) : opened.args.view) as Json;
}

function alertValues(channel: string, sensitivity: string): Record<string, Record<string, StateValue>> {
  return {
    alert_channel: { value: { type: 'conversations_select', selected_conversation: channel } },
    alert_sensitivity: {
      value: {
        type: 'static_select',
        selected_option: { text: { type: 'plain_text', text: sensitivity }, value: sensitivity },
      },
    },
  };
}

/** `/docs-health alerts` in #docs: what the store holds, as the command tells it. */
async function alertsStatus(t: TestApp): Promise<string> {
  const before = t.slack.responses.length;
  await t.command({ command: '/docs-health', text: 'alerts', channel_id: 'C0DOCS', user_id: ALICE });
  const answer = await waitFor(() => t.slack.responses[before], { what: 'the alerts status' });
  return String(answer.body.text ?? '');
}

const submit = (t: TestApp, view: Json, values: Record<string, Record<string, StateValue>>) =>
  t.interaction(viewSubmissionPayload({ userId: ALICE, view, values }));

describe('docs-health alert channels in a form on Home (issue 46 §5)', () => {
  it('turns alerts on with a sensitivity, changes it in place, refuses a channel outside the access lists, turns them off after asking', async () => {
    const t = await startTestApp({ env: { ALLOWED_CHANNEL_IDS: 'C0DOCS,C0OPS' } });
    app = t;
    await t.event(
      eventEnvelope({
        type: 'app_home_opened',
        user: ALICE,
        channel: 'D0HOME',
        tab: 'home',
        event_ts: '1.1',
      }),
    );
    await waitFor(() => homeText(t).includes(HOME_ALERT_ADD_ACTION), {
      what: 'Home with the alerts section',
    });

    const form = await click(t, { action_id: HOME_ALERT_ADD_ACTION });
    expect((await submit(t, form, alertValues('C0DOCS', 'high'))).body).toBe('');
    await waitFor(() => homeText(t).includes('<#C0DOCS> · high sensitivity'), {
      what: 'Home with the channel',
    });
    expect(await alertsStatus(t)).toContain('sensitivity *high*');

    const edit = await click(t, { action_id: HOME_ALERT_MENU_ACTION, selected: 'edit|C0DOCS' });
    expect(JSON.stringify(edit.blocks)).toContain('"initial_conversation":"C0DOCS"');
    expect((await submit(t, edit, alertValues('C0DOCS', 'low'))).body).toBe('');
    await waitFor(() => homeText(t).includes('<#C0DOCS> · low sensitivity'), {
      what: 'Home with the new sensitivity',
    });
    expect(homeText(t).split(HOME_ALERT_MENU_ACTION).length - 1).toBe(1);

    // Asked again on submit: a channel docs-agent is not enabled in is refused in the field.
    const elsewhere = await click(t, { action_id: HOME_ALERT_ADD_ACTION });
    const refused = JSON.parse((await submit(t, elsewhere, alertValues('C0RANDOM', 'normal'))).body) as Json;
    expect(String((refused.errors as Json)[ALERT_CHANNEL_BLOCK])).toContain(
      'not enabled in this conversation',
    );
    expect(homeText(t)).not.toContain('C0RANDOM');

    const question = await click(t, { action_id: HOME_ALERT_MENU_ACTION, selected: 'remove|C0DOCS' });
    expect(JSON.stringify(question)).toContain('Stop docs-health alerts in <#C0DOCS>?');
    expect((await submit(t, question, {})).body).toBe('');
    await waitFor(() => !homeText(t).includes('<#C0DOCS> · low'), { what: 'Home without the channel' });
    expect(await alertsStatus(t)).toContain('Docs-health alerts are off in this channel');
  }, 30_000);
});
