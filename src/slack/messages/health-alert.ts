import type { KnownBlock, Overflow } from '@slack/types';
import type { HealthAlert, TrendPoint } from '../../insights/alerts/alert.js';
import { shortHash } from '../../insights/alerts/health-alerts.js';
import type { SignalKind } from '../../insights/alerts/signals.js';
import { addDays } from '../../insights/ranges/dates.js';
import { formatDay } from '../copy/dates.js';
import { NOTICE_EMOJI } from '../copy/status-emoji.js';
import { defuseLinks, untrustedMrkdwn } from '../markup.js';
import { bucketedChartBlock, ChartInputError } from './charts.js';
import { displayCount, formatCount, mrkdwnLink } from './format.js';
import { HEALTH_FIX_ACTION_PREFIX, healthPageUrl } from './health-report.js';
import { LIMITS, oneLine, truncate } from './limits.js';
import { ALERT_LOOK_ACTION } from './shared-state.js';
import type { MessageBlock, SlackMessage } from './types.js';

/** Reader text shown at most this long in an alert (the Fix form carries the whole row). */
const MAX_SHOWN_CHARS = 300;
const SPARK = '▁▂▃▄▅▆▇█';

// Not `toLocaleString`: a process's first call loads ICU's number data, one 20–40 ms task (issue 43, seen
// in §1's owed-answer burst); formatCount writes the same "1,234" without Intl.
const n = formatCount;
/** Reader text inside mrkdwn exactly as `/docs-health` shows it: no mentions, links or code breakouts. */
const quoted = (text: string) => untrustedMrkdwn(oneLine(text, MAX_SHOWN_CHARS));

const SIGNAL_NAMES: Record<SignalKind, string> = {
  search: 'searches that found nothing',
  page: '👎 on a page',
  question: 'questions the assistant could not answer',
  traffic: 'page views that collapsed',
};

/** The page as `/docs-health` shows it: a link to the docs site when DOCS_SITE_URL is set, else code. */
function pageLabel(path: string, siteUrl: string | undefined): string {
  const url = healthPageUrl(siteUrl, path);
  const label = oneLine(path, MAX_SHOWN_CHARS);
  return url ? mrkdwnLink(url, defuseLinks(label)) : `\`${untrustedMrkdwn(label)}\``;
}

const usual = (alert: HealthAlert) => {
  const { low, high } = alert.comparison.usual;
  return low === high ? `usually ${n(low)} a day` : `usual ${n(low)}–${n(high)} a day`;
};

/** How today compares with the usual day: "5× usual" when the baseline is clear, else the usual range. */
function againstUsual(alert: HealthAlert): string {
  const { today, expected, direction } = alert.comparison;
  if (direction === 'rise' && expected >= 0.5 && today / expected >= 2)
    return `${Math.round(today / expected)}× usual`;
  return usual(alert);
}

const times = (count: string) => (count === '1' ? '*once*' : `*${count} times*`);

/** The headline states the finding ("Searches for “rate limit” found nothing *14 times* today — 5× usual"). */
export function alertHeadline(alert: HealthAlert, siteUrl: string | undefined): string {
  const today = n(alert.comparison.today);
  const e = alert.evidence;
  const vs = againstUsual(alert);
  switch (alert.kind) {
    case 'search':
      return `Searches for “${quoted(alert.key)}” found nothing ${times(today)} today — ${vs}`;
    case 'page':
      return `${pageLabel(e.kind === 'page' ? e.path : alert.key, siteUrl)} got *${today} 👎* today — ${vs}`;
    case 'question':
      return `Readers asked “${quoted(e.kind === 'question' ? e.question : alert.key)}” ${times(today)} today and the assistant could not answer — ${vs}`;
    case 'traffic':
      return `Views of ${pageLabel(alert.key, siteUrl)} fell to *${today}* in the last 24 hours — usually about ${n(alert.comparison.expected)} a day`;
  }
}

/** Readers' latest comments on a flagged page, quoted as `/docs-health` quotes them. */
function evidenceLines(alert: HealthAlert): string[] {
  const e = alert.evidence;
  if (e.kind !== 'page' || e.comments.length === 0) return [];
  return e.comments.slice(0, 2).map((c) => `>${quoted(c)}`);
}

/**
 * The last 28 days and today: Slack's native chart, or the text sparkline when the days cannot be charted
 * (never both: the headline already states today's count and the usual day, so a workspace that refuses
 * charts, whose edge drops the chart, still reads the whole finding).
 */
export function alertTrendBlocks(trend: readonly TrendPoint[], yLabel?: string): MessageBlock[] {
  if (trend.length === 0) return [];
  const chart = trendChart(trend, yLabel);
  return chart.length > 0 ? chart : trendLine(trend);
}

/**
 * The trend as Slack's native chart (a workspace that refuses charts gets the alert without it, once a day:
 * the Slack edge's blocks gate); none when the days have a gap the chart cannot show.
 */
function trendChart(trend: readonly TrendPoint[], yLabel: string | undefined): MessageBlock[] {
  // Today is its own point (the spike is what the alert is about); the days before in pairs (their mean a
  // day, so every bar reads per day), newest last, so 28 days and today fit Slack's 20 points.
  const days = trend.map((p) => p.day);
  const values = trend.map((p) => displayCount(p.value));
  const buckets: Array<{ from: string; toExclusive: string; value: number }> = [];
  for (let end = days.length; end > 0; ) {
    const size = end === days.length || end === 1 ? 1 : 2;
    const start = end - size;
    buckets.unshift({
      from: days[start]!,
      toExclusive: addDays(days[end - 1]!, 1),
      value: Math.round((sum(values.slice(start, end)) / size) * 10) / 10,
    });
    end = start;
  }
  try {
    if (days.some((day, i) => i > 0 && day !== addDays(days[i - 1]!, 1)))
      throw new ChartInputError('chart_days_not_consecutive', 'Chart days must be consecutive');
    return [
      bucketedChartBlock({
        title: 'Last 28 days, and today so far',
        kind: 'bar',
        ...(yLabel ? { yLabel } : {}),
        buckets,
        series: [{ name: 'a day', values: buckets.map((b) => b.value) }],
      }),
    ];
  } catch (error) {
    if (error instanceof ChartInputError) return [];
    throw error;
  }
}

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

/** The trend in words and a sparkline, where no chart can show it. */
function trendLine(trend: readonly TrendPoint[]): KnownBlock[] {
  const values = trend.map((p) => displayCount(p.value));
  const max = Math.max(...values);
  const bar = (v: number) => (max === 0 ? SPARK[0]! : SPARK[Math.round((v / max) * (SPARK.length - 1))]!);
  const past = values.slice(0, -1);
  const spark = `${past.map(bar).join('')}│${bar(values.at(-1)!)}`;
  const first = trend[0]!.day;
  const last = trend.at(-1)!;
  const text = `\`${spark}\`  ${formatDay(first)} → ${formatDay(last.day)}${last.today ? ' (today so far)' : ''} · max ${n(max)} · today ${n(values.at(-1)!)}`;
  return [{ type: 'context', elements: [{ type: 'mrkdwn', text: truncate(text, LIMITS.sectionText) }] }];
}

/** The alert's overflow menu: its one option mutes this signal in this channel. */
export const ALERT_MENU_ACTION = 'health_alert_menu';
/** The mute option's value: `mute:<signal hash>` (a hash, never reader text; within the 150-char limit). */
export const MUTE_SIGNAL_PREFIX = 'mute:';

/** The alert's mute menu for a signal (its hash), also put back when a mute ends. */
export function alertMenu(signalHash: string): Overflow {
  return {
    type: 'overflow',
    action_id: ALERT_MENU_ACTION,
    options: [
      {
        text: { type: 'plain_text', text: 'Mute this signal for 7 days' },
        value: `${MUTE_SIGNAL_PREFIX}${signalHash}`,
      },
    ],
  };
}

/** The alert: the finding as its headline, readers' words, one trend, then Fix, I'll look and the mute menu. */
export function healthAlertMessage(
  alert: HealthAlert,
  options: { siteUrl: string | undefined },
): SlackMessage {
  const headline = alertHeadline(alert, options.siteUrl);
  const project = alert.project ? ` · project \`${untrustedMrkdwn(oneLine(alert.project, 60))}\`` : '';
  const blocks: MessageBlock[] = [
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: truncate(
          [`${NOTICE_EMOJI.alert} ${headline}`, ...evidenceLines(alert)].join('\n'),
          LIMITS.sectionText,
        ),
      },
    },
    {
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: truncate(
            `Docs-health alert · ${SIGNAL_NAMES[alert.kind]}, ${usual(alert)} over 28 days · sensitivity ${alert.sensitivity}${project}`,
            LIMITS.sectionText,
          ),
        },
      ],
    },
    ...alertTrendBlocks(alert.trend, SIGNAL_NAMES[alert.kind]),
    {
      type: 'actions',
      block_id: `health_fix_${alert.evidence.kind}`,
      elements: [
        {
          type: 'button',
          action_id: `${HEALTH_FIX_ACTION_PREFIX}_${alert.evidence.kind}_1`,
          style: 'primary',
          text: { type: 'plain_text', text: 'Fix' },
          value: alert.evidenceRef.slice(0, LIMITS.buttonValue),
        },
        {
          type: 'button',
          action_id: ALERT_LOOK_ACTION,
          text: { type: 'plain_text', text: "I'll look" },
          value: 'look',
          accessibility_label: "Tell the channel you're looking into this alert",
        },
        alertMenu(shortHash(alert.signalId)),
      ],
    },
  ];
  return { text: truncate(`Docs-health alert: ${headline.replace(/\*/g, '')}`, LIMITS.fallbackText), blocks };
}

/** The one follow-up in the alert's thread when the signal kept rising (or kept falling, for traffic). */
export function healthAlertFollowUpMessage(
  alert: HealthAlert,
  previous: number,
  options: { siteUrl: string | undefined },
): SlackMessage {
  const word = alert.comparison.direction === 'rise' ? 'Still rising' : 'Still falling';
  const text = `${word}: ${alertHeadline(alert, options.siteUrl)} (the alert said ${n(previous)}).`;
  return {
    text: truncate(text.replace(/\*/g, ''), LIMITS.fallbackText),
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: truncate(text, LIMITS.sectionText) } },
      ...alertTrendBlocks(alert.trend, SIGNAL_NAMES[alert.kind]),
    ],
  };
}
