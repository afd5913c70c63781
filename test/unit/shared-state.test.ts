import { describe, expect, it } from 'vitest';
import {
  fixEndedOn,
  fixStartedOn,
  lookingOn,
  mutedOn,
  restartedOn,
  stoppedOn,
  unmutedOn,
} from '../../src/slack/messages/shared-state.js';
import type { MessageBlock } from '../../src/slack/messages/types.js';

/* The edits of a shared message: by structure, within Slack's limits, each line replaced when done again. */

const AT = Date.parse('2026-12-07T05:00:00Z');
const LINK = 'https://slack.com/archives/C0DOCS/p1700000000000200?thread_ts=1700000000.000100&cid=C0DOCS';

function row(n: number): MessageBlock {
  return {
    type: 'section',
    text: { type: 'mrkdwn', text: `*${n}.* “<@U0EVIL> reader text”` },
    accessory: {
      type: 'button',
      action_id: `health_fix_search_${n}`,
      text: { type: 'plain_text', text: 'Fix' },
      value: `ev_${n}`,
    },
  };
}

const alert: MessageBlock[] = [
  { type: 'section', text: { type: 'mrkdwn', text: ':rotating_light: Searches for “x” found nothing' } },
  {
    type: 'actions',
    block_id: 'health_fix_search',
    elements: [
      {
        type: 'button',
        action_id: 'health_fix_search_1',
        style: 'primary',
        text: { type: 'plain_text', text: 'Fix' },
        value: 'ev_1',
      },
      {
        type: 'overflow',
        action_id: 'health_alert_menu',
        options: [{ text: { type: 'plain_text', text: 'Mute' }, value: 'mute:abcdefghijklmnop' }],
      },
    ],
  },
];

describe('shared message edits', () => {
  it('a row being fixed: its button reads Fixing…, a line under it; again by someone else replaces the line', () => {
    const blocks = [row(1), row(2)];
    const once = fixStartedOn(blocks, 'health_fix_search_2', { userId: 'U0ALICE', atMs: AT, link: LINK })!;
    expect(once).toHaveLength(3);
    expect(once[1]).toMatchObject({ accessory: { text: { text: 'Fixing…' }, value: 'ev_2' } });
    expect(JSON.stringify(once[2])).toContain('started by <@U0ALICE> <!date^');
    expect(once[1]).toMatchObject({ text: { text: '*2.* “<@U0EVIL> reader text”' } }); // untouched
    const twice = fixStartedOn(once, 'health_fix_search_2', { userId: 'U0BOB', atMs: AT, link: LINK })!;
    expect(twice).toHaveLength(3);
    expect(JSON.stringify(twice[2])).toContain('<@U0BOB>');
    expect(
      fixStartedOn(blocks, 'health_fix_search_9', { userId: 'U0A', atMs: AT, link: LINK }),
    ).toBeUndefined();
  });

  it('at 50 blocks the line goes in the row itself; past the total text limit nothing changes', () => {
    const full = Array.from({ length: 50 }, (_, i) => row(i + 1));
    const marked = fixStartedOn(full, 'health_fix_search_7', { userId: 'U0A', atMs: AT, link: LINK })!;
    expect(marked).toHaveLength(50);
    expect(JSON.stringify((marked[6] as { fields?: unknown }).fields)).toContain('started by <@U0A>');
    const long: MessageBlock = { type: 'section', text: { type: 'mrkdwn', text: 'x'.repeat(11_950) } };
    expect(fixStartedOn([long, row(1)], 'health_fix_search_1', { userId: 'U0A', atMs: AT, link: LINK })).toBe(
      undefined,
    );
  });

  it("a fix that ended gives the button back as it was, unless a later job's line holds the row", () => {
    const fixing = fixStartedOn(alert, 'health_fix_search_1', { userId: 'U0ALICE', atMs: AT, link: LINK })!;
    const end = {
      userId: 'U0ALICE',
      atMs: AT,
      link: LINK,
      button: { text: { type: 'plain_text' as const, text: 'Fix' }, style: 'primary' as const },
    };
    const ended = fixEndedOn(fixing, 'health_fix_search_1', end)!;
    expect(ended[1]).toMatchObject({
      elements: [{ text: { text: 'Fix' }, style: 'primary' }, { type: 'overflow' }],
    });
    expect(JSON.stringify(ended[2])).toContain("<@U0ALICE>'s fix ended");
    expect(fixEndedOn(ended, 'health_fix_search_1', end)).toBeUndefined(); // Fix already
    const other = 'https://slack.com/archives/C0DOCS/p1700000000000900';
    const later = fixStartedOn(ended, 'health_fix_search_1', { userId: 'U0BOB', atMs: AT, link: other })!;
    expect(fixEndedOn(later, 'health_fix_search_1', end)).toBeUndefined(); // Bob's job holds the row now
  });

  it('a mute removes the menu and says who until when; the Fix button stays', () => {
    const muted = mutedOn(alert, { userId: 'U0BOB', untilMs: AT, menuActionId: 'health_alert_menu' })!;
    expect(muted[1]).toMatchObject({ elements: [{ type: 'button' }] });
    expect((muted[1] as { elements: unknown[] }).elements).toHaveLength(1);
    expect(JSON.stringify(muted[2])).toContain('🔕 Muted by <@U0BOB> until <!date^');
    expect(
      mutedOn([row(1)], { userId: 'U0BOB', untilMs: AT, menuActionId: 'health_alert_menu' }),
    ).toBeUndefined();
  });

  it("a mute's end takes its line away and puts the menu back in the buttons' row; another end changes nothing", () => {
    const menu = (alert[1] as { elements: unknown[] }).elements[1] as Parameters<typeof unmutedOn>[1]['menu'];
    const muted = mutedOn(alert, { userId: 'U0BOB', untilMs: AT, menuActionId: 'health_alert_menu' })!;
    // Someone looking meanwhile: their line sits between the buttons and the mute's.
    const looking: MessageBlock = {
      type: 'context',
      block_id: 'shared_looking',
      elements: [{ type: 'mrkdwn', text: '👀 <@U0CAROL> is looking' }],
    };
    const looked = [muted[0]!, muted[1]!, looking, ...muted.slice(2)];
    for (const blocks of [muted, looked]) {
      const ended = unmutedOn(blocks, { untilMs: AT, menu })!;
      expect(ended.some((b) => b.block_id === 'shared_muted')).toBe(false);
      expect(ended[1]).toEqual(alert[1]);
      expect(ended).toHaveLength(blocks.length - 1);
      // Done once: again, nothing changes (the line is gone).
      expect(unmutedOn(ended, { untilMs: AT, menu })).toBeUndefined();
    }
    // A later mute's line (another end) is not this end's to take away.
    expect(unmutedOn(muted, { untilMs: AT + 86_400_000, menu })).toBeUndefined();
    // The buttons' row gone (a menu alone was muted): the menu comes back in a row of its own.
    const alone = mutedOn([alert[0]!, { type: 'actions', elements: [menu] }], {
      userId: 'U0BOB',
      untilMs: AT,
      menuActionId: 'health_alert_menu',
    })!;
    expect(unmutedOn(alone, { untilMs: AT, menu })).toEqual([
      alert[0],
      { type: 'actions', elements: [menu] },
    ]);
  });

  it("I'll look: a line under the buttons names who is looking and since when; the same person again changes nothing", () => {
    const withLook: MessageBlock[] = [
      alert[0]!,
      {
        type: 'actions',
        elements: [
          { type: 'button', action_id: 'health_alert_look', text: { type: 'plain_text', text: "I'll look" } },
        ],
      },
      { type: 'section', text: { type: 'mrkdwn', text: 'below' } },
    ];
    const bob = lookingOn(withLook, { userId: 'U0BOB', atMs: AT })!;
    expect(bob).toHaveLength(4);
    expect(bob[2]).toMatchObject({ type: 'context', block_id: 'shared_looking' });
    expect(JSON.stringify(bob[2])).toContain('👀 <@U0BOB> is looking · <!date^');
    expect(lookingOn(bob, { userId: 'U0BOB', atMs: AT + 60_000 })).toBeUndefined();
    const carol = lookingOn(bob, { userId: 'U0CAROL', atMs: AT })!;
    expect(carol).toHaveLength(4);
    expect((carol[2] as { elements: unknown[] }).elements).toHaveLength(2);
    expect(JSON.stringify(carol[2])).toContain('<@U0CAROL> is looking');
    expect(lookingOn(alert, { userId: 'U0BOB', atMs: AT })).toBeUndefined(); // no I'll look button
    let full = bob;
    for (let i = 0; i < 9; i += 1) full = lookingOn(full, { userId: `U0P${i}`, atMs: AT })!;
    expect(lookingOn(full, { userId: 'U0LATE', atMs: AT })).toBeUndefined(); // ten names at most
  });

  it('Stop and Undo replace the Stop block in place, one block for one', () => {
    const post: MessageBlock[] = [
      row(1),
      {
        type: 'actions',
        block_id: 'weekly_post_stop',
        elements: [
          {
            type: 'button',
            action_id: 'weekly_stop',
            text: { type: 'plain_text', text: 'Stop these posts' },
            value: 'health',
          },
        ],
      },
    ];
    const stopped = stoppedOn(post, { userId: 'U0ALICE', atMs: AT, kind: 'health' })!;
    expect(stopped).toHaveLength(2);
    expect(stopped[1]).toMatchObject({
      block_id: 'weekly_post_stop',
      accessory: { action_id: 'weekly_undo_stop', value: 'health' },
    });
    const restarted = restartedOn(stopped, { userId: 'U0BOB', atMs: AT, kind: 'health' })!;
    expect(restarted[1]).toMatchObject({
      accessory: { action_id: 'weekly_stop', value: 'health', confirm: {} },
    });
    expect(JSON.stringify(restarted[1])).toContain('Restarted by <@U0BOB>');
    expect(stoppedOn([row(1)], { userId: 'U0A', atMs: AT, kind: 'health' })).toBeUndefined();
  });
});
