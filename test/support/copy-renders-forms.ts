/** The copy test's renders of Home's forms (issue 46 §5): weekly posts, alert channels, Settings. */
import { NOW, type Renders, USER } from './copy-fixtures.js';

const schedule = (kind: 'page_views' | 'health', channelId: string) => ({
  channelId,
  cron: '0 9 * * 1',
  timeZone: 'Europe/Berlin',
  nextRunAt: NOW + 86_400_000,
  scheduleKind: kind,
});
const ref = { kind: 'health' as const, channelId: 'C0DOCS' };
const settings = (external: boolean) => ({
  manage: true,
  connections: [
    {
      projectId: 'proj_acme_docs',
      channelId: undefined,
      connectedBy: USER,
      connectedAt: NOW,
      maskedKey: 'svc_…abcd',
    },
  ],
  installerUserId: USER,
  managers: { added: ['U0BOB'], externalUsers: external, externalUsersChosen: external },
});

export const FORM_RENDERS: Renders = {
  'home-schedules-form.ts': {
    homeWeeklyBlocks: (m) => [
      m.homeWeeklyBlocks([]),
      m.homeWeeklyBlocks([schedule('page_views', 'C0DOCS'), schedule('health', 'C0OPS')]),
    ],
    weeklyFormView: (m) => [
      m.weeklyFormView({ timeZone: 'Europe/Berlin' }),
      m.weeklyFormView({ timeZone: undefined }),
      m.weeklyFormView({ timeZone: 'Europe/Berlin', editing: { ...ref, weekday: 1, hour: 9, minute: 5 } }),
    ],
    weeklyRemoveView: (m) => [m.weeklyRemoveView(ref), m.weeklyRemoveView({ ...ref, kind: 'page_views' })],
  },
  'home-alerts-form.ts': {
    homeAlertBlocks: (m) => [
      m.homeAlertBlocks([]),
      m.homeAlertBlocks([{ channelId: 'C0DOCS', sensitivity: 'high' }]),
    ],
    alertFormView: (m) => [m.alertFormView(), m.alertFormView({ channelId: 'C0DOCS', sensitivity: 'low' })],
    alertRemoveView: (m) => [m.alertRemoveView('C0DOCS')],
  },
  'home-forms-words.ts': {
    weeklySavedText: (m) => [
      m.weeklySavedText({ ...ref, cron: '30 8 * * 5', timeZone: 'Europe/Berlin' }, NOW + 3_600_000, false),
      m.weeklySavedText({ ...ref, kind: 'page_views', cron: '0 9 * * 1', timeZone: 'UTC' }, undefined, true),
    ],
    weeklyRemovedText: (m) => [m.weeklyRemovedText(ref, true), m.weeklyRemovedText(ref, false)],
    weeklyTakenText: (m) => [m.weeklyTakenText('page_views'), m.weeklyTakenText('health')],
    formMembershipProblem: (m) =>
      (['not_member', 'bot_not_member', 'too_large', 'unreadable'] as const).map((reason) =>
        m.formMembershipProblem({ ok: false, reason, code: 'channel_not_found' }),
      ),
    alertSavedText: (m) => [
      m.alertSavedText('C0DOCS', 'high', false),
      m.alertSavedText('C0DOCS', 'low', true),
    ],
    alertRemovedText: (m) => [m.alertRemovedText('C0DOCS', true), m.alertRemovedText('C0DOCS', false)],
    nothingChangedAnswer: (m) => [m.nothingChangedAnswer(m.FORM_STORAGE_TEXT)],
  },
  'settings-form.ts': {
    settingsFormView: (m) => [m.settingsFormView(settings(false)), m.settingsFormView(settings(true))],
    refusedPeopleText: (m) => [
      m.refusedPeopleText([
        { name: 'Deploy Bot', why: 'app' },
        { name: 'Sam <@U0SAM>', why: 'elsewhere' },
        { name: 'Guest', why: 'guest' },
        { name: 'Gone', why: 'deactivated' },
        { name: 'Someone you picked', why: 'unknown' },
      ]),
    ],
    settingsSavedText: (m) => [
      m.settingsSavedText(['U0BOB'], ['U0CAROL'], true),
      m.settingsSavedText([], [], false),
      m.settingsSavedText([], [], undefined),
    ],
  },
};
