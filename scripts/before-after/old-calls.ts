import { type Module, record } from '../../test/support/copy-fixtures.js';

/** Calls of the baseline's builders whose arguments differ from today's (see dump-before.ts). */
export const OLD_CALLS: Record<string, (m: Module) => unknown> = {
  // Then: the job's record came first (its id was in the notice).
  'notice-watch-expired': (m) => m.noticeMessage(record(), { kind: 'watch_expired', maxAgeMs: 7_200_000 }),
  // Then: no `secret` notice in the list the registry renders today; the same "not allowed" one alone.
  'notice-not-allowed': (m) =>
    m.privateNoticeMessage({ kind: 'access_denied', reason: 'channel', ask: ['U0ADMIN1', 'U0ADMIN2'] }),
};
