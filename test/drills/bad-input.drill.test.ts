import { afterAll, describe, expect, it } from 'vitest';
import { replyIntent } from '../../src/jobs/domain/reply-intent.js';
import { waitFor } from '../support/http.js';
import { BOT_USER_ID, eventEnvelope, messageEvent } from '../support/slack-events.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { expectNoSecretsLeaked, recordDrill, sleep, watchUnhandledRejections } from './drill-support.js';

/**
 * Drill: a corpus of bad and hostile text through every way in (/docs-agent, /docs-views, @mentions, DMs,
 * replies in a job thread). Every case gets a visible answer, echoed text never pings anyone, nothing
 * crashes and no promise is left rejected.
 */
let app: TestApp | undefined;
const rejections = watchUnhandledRejections();
afterAll(async () => {
  rejections.stop();
  await app?.stop();
});

const VICTIM = 'U0VICTIM';
const CORPUS: Record<string, string> = {
  empty: '',
  whitespace: '   \n\t  ',
  zeroWidthOnly: '\u200B\u200C\u200D\uFEFF',
  rtl: '\u202Eevil\u202C مرحبا fix the Arabic quickstart \u2067rtl\u2069',
  emoji: '🚀🔥 add an emoji glossary 👍🏽 👨‍👩‍👧',
  huge: 'Document everything. '.repeat(2_000),
  hugeEmoji: '😀'.repeat(40_000),
  channelPing: '<!channel> fix the docs now',
  herePing: '<!here> please review',
  everyonePing: '<!everyone> urgent',
  userPing: `<@${VICTIM}> should review the auth page`,
  userPingLabel: `ask <@${VICTIM}|victim> about it`,
  groupPing: '<!subteam^S0WRITERS|@writers> review the tone',
  channelLink: 'move this to <#C0OTHER|general>',
  links: 'see <https://evil.example/x|click here> and <mailto:a@b.example|mail> and <javascript:alert(1)|x>',
  markdown: '*bold* _it_ ~strike~ `code` > quote\n```\n<!channel> in a code block\n```',
  escapedMarkup: '&lt;!channel&gt; written literally',
  invalidDate: '2024-02-30..2024-03-05',
  reversedRange: '2024-05-01..2024-04-01',
  unknownSub: 'frobnicate --now',
  hugeTop: 'top 99999999999999999999',
  negativeTop: 'top -5',
  negative: '-1',
  statusTraversal: 'status ../../etc/passwd',
  statusPing: 'status <!channel>',
  statusBare: 'status',
};

type Path = 'docs-agent' | 'docs-views' | 'mention' | 'dm' | 'thread';
const PATHS: Path[] = ['docs-agent', 'docs-views', 'mention', 'dm', 'thread'];

/** Visible text the bot produced for one case; '' while there is none. */
function answerText(t: TestApp, where: { channel?: string; responsePath?: string; ts?: string }): string {
  const texts: string[] = [];
  for (const r of t.slack.responses)
    if (where.responsePath && r.path.endsWith(where.responsePath)) texts.push(JSON.stringify(r.body));
  for (const call of t.slack.calls) {
    const args = call.args;
    if (
      call.method === 'chat.postEphemeral' &&
      args.channel === where.channel &&
      (!where.ts || args.thread_ts)
    )
      texts.push(`${args.text ?? ''}`);
    if (call.method === 'chat.postMessage' && args.channel === where.channel && !where.ts)
      texts.push(`${args.text ?? ''}`);
    if (
      call.method === 'chat.postMessage' &&
      where.ts &&
      JSON.stringify(args.metadata ?? '').includes(where.ts)
    )
      texts.push(`${args.text ?? ''}`);
    if (call.method === 'reactions.add' && where.ts && args.timestamp === where.ts)
      texts.push(`:${args.name}:`);
  }
  return texts.join('\n').trim();
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Everything in a payload Slack could turn into a notification, as text: strings anywhere, except the text
 * elements of rich_text blocks, which Slack renders literally. Rich-text `user`, `usergroup` and
 * `broadcast` elements (which do notify) are rendered as the markup they stand for.
 */
function pingable(value: unknown, inRichText = false): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map((v) => pingable(v, inRichText)).join(' ');
  if (!value || typeof value !== 'object') return '';
  const node = value as Record<string, unknown>;
  if (inRichText && node.type === 'text') return '';
  if (inRichText && node.type === 'user') return `<@${String(node.user_id)}>`;
  if (inRichText && node.type === 'usergroup') return `<!subteam^${String(node.usergroup_id)}>`;
  if (inRichText && node.type === 'broadcast') return `<!${String(node.range)}>`;
  const rich = inRichText || node.type === 'rich_text';
  return Object.entries(node)
    .filter(([key]) => key !== 'token')
    .map(([, v]) => pingable(v, rich))
    .join(' ');
}

const handledAsChatter = (t: TestApp, ts: string | undefined) =>
  t.logs.some(
    (line) =>
      line.includes('message event handled') &&
      line.includes(`"ts":"${ts}"`) &&
      line.includes('"why":"chatter"'),
  );

describe('drill: bad input corpus', () => {
  it('every case on every path gets a clear answer; echoed text pings nobody; nothing crashes', async () => {
    app = await startTestApp({ env: { AGENT_JOBS_PER_HOUR: '100000', ANALYTICS_HOURLY_BUDGET: '100000' } });
    const t = app;
    t.docs.jobsPerHour = 100_000;
    t.slack.users.set('U0ALICE', { name: 'alice', display_name: 'Alice' });
    t.slack.users.set(VICTIM, { name: 'victim', display_name: 'Victim' });

    // A job whose thread takes the thread-reply cases.
    await t.command({ text: 'Base job for the corpus', channel_id: 'C0THREAD' });
    const base = await waitFor(() => (t.docs.jobs.size === 1 ? t.docs.onlyJob : undefined), {
      what: 'base job',
    });
    await waitFor(
      () => t.slack.callsOf('chat.update').some((c) => JSON.stringify(c.args).includes(base.id)),
      {
        what: 'base card tracked',
      },
    );
    const card = t.slack.messages.find((m) => m.channel === 'C0THREAD' && !m.thread_ts)!;

    const ackBodies: string[] = [];
    const unanswered: string[] = [];
    const ignoredAsChatter: string[] = [];
    let cases = 0;
    let n = 0;
    for (const [name, text] of Object.entries(CORPUS)) {
      for (const path of PATHS) {
        n += 1;
        cases += 1;
        const label = `${path}/${name}`;
        let where: { channel?: string; responsePath?: string; ts?: string };
        let ackText = '';
        if (path === 'docs-agent' || path === 'docs-views') {
          const channel = `C0CASE${n}`;
          const response = await t.command({
            command: `/${path}`,
            text,
            channel_id: channel,
            response_url: t.slack.responseUrl(`case-${n}`),
          });
          expect(response.status, label).toBe(200);
          ackBodies.push(response.body);
          ackText = response.body;
          where = { channel, responsePath: `/case-${n}` };
        } else if (path === 'mention' || path === 'dm') {
          const channel = path === 'dm' ? `D0CASE${n}` : `C0CASE${n}`;
          const event = messageEvent({
            type: path === 'mention' ? 'app_mention' : 'message',
            channel,
            ...(path === 'dm' ? { channel_type: 'im' } : {}),
            text: path === 'mention' ? `<@${BOT_USER_ID}> ${text}` : text,
          });
          expect((await t.event(eventEnvelope(event))).status, label).toBe(200);
          where = { channel };
        } else {
          const event = messageEvent({ channel: 'C0THREAD', thread_ts: card.ts, text });
          expect((await t.event(eventEnvelope(event))).status, label).toBe(200);
          where = { channel: 'C0THREAD', ts: String(event.ts) };
        }
        // In a job thread, a reply that says nothing to the bot (empty, invisible, only emoji) is people's
        // chatter (issue 44): it gets no answer, and its positive sign is the log of it handled as chatter.
        const chatter = path === 'thread' && replyIntent(text, BOT_USER_ID) !== 'instruction';
        const answered = chatter
          ? await waitFor(() => handledAsChatter(t, where.ts) && 'ignored as chatter', {
              timeoutMs: 5_000,
              what: label,
            }).catch(() => '')
          : ackText.replace(/^\s*$/, '') !== ''
            ? ackText
            : await waitFor(() => answerText(t, where), { timeoutMs: 5_000, what: label }).catch(() => '');
        if (answered === '') unanswered.push(label);
        if (chatter) ignoredAsChatter.push(label);
      }
    }
    await sleep(300);

    // No ping from echoed user text anywhere: messages, updates, ephemerals, response_url answers, acks.
    const sent = [
      ...t.slack.calls.map((c) => pingable(c.args)),
      ...t.slack.responses.map((r) => pingable(r.body)),
      ...ackBodies.map((b) => pingable(safeJson(b))),
    ].join('\n');
    const pings = ['<!channel>', '<!here>', '<!everyone>', '<!subteam^', `<@${VICTIM}`].filter((p) =>
      sent.includes(p),
    );
    const scanned = expectNoSecretsLeaked(t, ackBodies);
    recordDrill('bad-input', {
      corpusTexts: Object.keys(CORPUS).length,
      paths: PATHS,
      casesTried: cases,
      unanswered,
      ignoredAsChatter,
      pingsFromEchoedText: pings,
      docsJobsStarted: t.docs.jobs.size,
      unhandledRejections: rejections.seen.length,
      secretScanTexts: scanned,
    });
    expect(unanswered).toEqual([]);
    expect(pings).toEqual([]);
    // Invisible-only text never reaches the agent as an instruction.
    for (const job of t.docs.jobs.values())
      for (const prompt of job.prompts)
        expect(
          prompt
            .replace(/^Follow-up from @[^\n]*\n\n/, '')
            .replace(/[\s\u200B-\u200F\u202A-\u202E\u2066-\u2069\uFEFF]/g, ''),
        ).not.toBe('');
    expect(rejections.seen).toEqual([]);
  }, 120_000);
});
