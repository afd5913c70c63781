import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HealthAlert } from '../../../src/insights/alerts/alert.js';
import { parseAlertsCommand } from '../../../src/insights/alerts/alert-command.js';
import { compareCount, compareTraffic } from '../../../src/insights/alerts/rules.js';
import { flaggedPages, searchGaps } from '../../../src/insights/health/report.js';
import { HEALTH_FIX_ACTION } from '../../../src/slack/listeners/actions/health-fix.js';
import {
  alertTrendBlocks,
  healthAlertFollowUpMessage,
  healthAlertMessage,
} from '../../../src/slack/messages/health-alert.js';
import { hostileText, liveMarkup } from '../../support/hostile-text.js';
import { checkMessage } from '../../support/slack-block-kit-limits.js';

const range = { from: '2026-11-26', toExclusive: '2026-11-27' };
const quiet = Array.from({ length: 28 }, (_, i) => (i % 9 === 0 ? 1 : 0));
const trend = [
  ...quiet.map((value, i) => ({
    day: new Date(Date.UTC(2026, 9, 29 + i)).toISOString().slice(0, 10),
    value,
  })),
  { day: '2026-11-26', value: 14, today: true },
];

function searchAlert(query: string, today = 14): HealthAlert {
  const [evidence] = searchGaps(
    [{ searchQuery: query, hits: today, ctr: 0, topClickedPage: null }],
    100,
    range,
  );
  return {
    channelId: 'C1',
    kind: 'search',
    key: evidence!.query,
    signalId: `search:${evidence!.query}`,
    comparison: compareCount(today, quiet),
    sensitivity: 'normal',
    day: range.from,
    trend,
    evidence: evidence!,
    evidenceRef: 'ev_AAAAAAAAAAAAAAAA',
  };
}

/** Every `text` a reader sees (not button values). */
function shown(message: { text: string; blocks?: unknown[] }): string {
  const out: string[] = [message.text];
  const walk = (value: unknown, key?: string): void => {
    if (typeof value === 'string') {
      if (key === 'text') out.push(value);
    } else if (Array.isArray(value)) for (const v of value) walk(v);
    else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, k);
  };
  walk(message.blocks);
  return out.join('\n');
}

describe('alert message', () => {
  it('names the signal, today against the usual day, the trend and a Fix button the fix listener takes', () => {
    const message = healthAlertMessage(searchAlert('webhook retries'), { siteUrl: undefined });
    expect(checkMessage(message)).toEqual({ ok: true });
    // The headline states the finding; no statistics in channel text.
    expect(message.text).toContain(
      'Searches for “webhook retries” found nothing 14 times today — usual 0–1 a day',
    );
    expect(shown(message)).not.toMatch(/p = |0\.000001|Signal:/);
    const actions = message.blocks.find((b) => b.type === 'actions') as unknown as {
      elements: Array<Record<string, string>>;
    };
    expect(actions.elements[0]!.action_id).toMatch(HEALTH_FIX_ACTION);
    expect(actions.elements[0]!.value).toBe('ev_AAAAAAAAAAAAAAAA');
    // Then "I'll look", and the menu that mutes this signal in this channel: a hash, never reader text.
    expect(actions.elements[1]).toMatchObject({ type: 'button', action_id: 'health_alert_look' });
    expect(actions.elements[2]).toMatchObject({ type: 'overflow', action_id: 'health_alert_menu' });
    const menu = actions.elements[2] as unknown as {
      options: Array<{ text: { text: string }; value: string }>;
    };
    expect(menu.options.map((o) => o.text.text)).toEqual(['Mute this signal for 7 days']);
    expect(menu.options[0]!.value).toMatch(/^mute:[A-Za-z0-9_-]{16}$/);
    // The trend once: Slack's chart, so no sparkline of the same days.
    expect(
      message.blocks.filter((b) => b.type === 'context').map((b) => JSON.stringify(b)),
    ).not.toContainEqual(expect.stringContaining('→'));
    // The 28 days and today as Slack's own chart: the days before in pairs (a day's mean), today alone.
    const chart = message.blocks.find((b) => b.type === 'data_visualization') as unknown as {
      chart: { series: Array<{ data: Array<{ label: string; value: number }> }> };
    };
    const points = chart.chart.series[0]!.data;
    expect(points).toHaveLength(15);
    expect(points.at(-1)).toEqual({ label: '26 Nov', value: 14 });
    expect(points.slice(0, -1).reduce((a, p) => a + p.value * 2, 0)).toBe(
      quiet.reduce((a: number, b) => a + b, 0),
    );
  });

  it('a page alert quotes readers’ comments as /docs-health does; a traffic alert names the drop', () => {
    const [page] = flaggedPages(
      [{ path: '/guides/webhooks', thumbsUp: 1, thumbsDown: 9 }],
      [{ id: '1', path: '/guides/webhooks', comment: 'Step 3 is wrong <!channel> https://evil.example/x' }],
      range,
    );
    const alert: HealthAlert = {
      ...searchAlert('x'),
      kind: 'page',
      key: '/guides/webhooks',
      evidence: page!,
      comparison: compareCount(9, quiet),
    };
    const message = healthAlertMessage(alert, { siteUrl: 'https://docs.acme.dev' });
    expect(checkMessage(message)).toEqual({ ok: true });
    expect(liveMarkup(shown(message)).filter((m) => !m.includes('//docs.acme.dev/'))).toEqual([]);
    expect(shown(message)).toContain('Step 3 is wrong');
    const traffic = healthAlertMessage(
      { ...alert, kind: 'traffic', comparison: compareTraffic(40, Array(28).fill(500)) },
      { siteUrl: undefined },
    );
    expect(traffic.text).toContain('fell to 40 in the last 24 hours — usually about 500 a day');
  });

  it('reader text never links, mentions or breaks out, and the message always fits Slack', () => {
    fc.assert(
      fc.property(hostileText(), (query) => {
        // Only text that `/docs-health` keeps (something visible is left once cleaned) becomes a signal.
        if (searchGaps([{ searchQuery: query, hits: 1, ctr: 0 }], 1, range).length === 0) return;
        const alert = searchAlert(query);
        for (const message of [
          healthAlertMessage(alert, { siteUrl: undefined }),
          healthAlertFollowUpMessage(alert, 7, { siteUrl: undefined }),
        ]) {
          expect(checkMessage(message)).toEqual({ ok: true });
          expect(liveMarkup(shown(message))).toEqual([]);
        }
      }),
    );
  });

  it('where the days cannot be charted (a gap), the trend is one sparkline point per day, today after the bar', () => {
    const gapped = trend.filter((_, i) => i !== 3);
    expect(alertTrendBlocks(gapped).map((b) => b.type)).toEqual(['context']);
    const block = alertTrendBlocks(gapped).find((b) => b.type === 'context') as unknown as {
      elements: Array<{ text: string }>;
    };
    const spark = /`([^`]+)`/.exec(block!.elements[0]!.text)![1]!;
    const [past, today] = spark.split('│');
    expect(Array.from(past!)).toHaveLength(27);
    expect(today).toBe('█');
    expect(alertTrendBlocks([])).toEqual([]);
  });
});

describe('parseAlertsCommand', () => {
  it('reads on/off/status with a sensitivity, and names the token it cannot read', () => {
    expect(parseAlertsCommand('alerts')).toEqual({ kind: 'alerts_status' });
    expect(parseAlertsCommand('alerts on')).toEqual({ kind: 'alerts_on', sensitivity: 'normal' });
    expect(parseAlertsCommand('ALERTS on sensitivity HIGH')).toEqual({
      kind: 'alerts_on',
      sensitivity: 'high',
    });
    expect(parseAlertsCommand('alerts on low')).toEqual({ kind: 'alerts_on', sensitivity: 'low' });
    expect(parseAlertsCommand('alerts off')).toEqual({ kind: 'alerts_off' });
    expect(parseAlertsCommand('alerts on sensitivity')).toMatchObject({
      kind: 'invalid',
      token: 'sensitivity',
    });
    expect(parseAlertsCommand('alerts on extreme')).toMatchObject({ kind: 'invalid', token: 'extreme' });
    expect(parseAlertsCommand('alerts maybe')).toMatchObject({ kind: 'invalid', token: 'maybe' });
    expect(parseAlertsCommand('alerts off now')).toMatchObject({ kind: 'invalid', token: 'now' });
    expect(parseAlertsCommand('30d top 5')).toBeUndefined();
    expect(parseAlertsCommand(undefined)).toBeUndefined();
  });
});
