import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeEvidenceRef, encodeEvidenceRef } from '../../src/insights/health/evidence-ref.js';
import {
  instructionFor,
  READER_INPUT_CLOSE,
  READER_INPUT_OPEN,
} from '../../src/insights/health/instruction.js';
import { docsPagePath } from '../../src/insights/page-snapshot/page-link.js';
import { evidenceOf, isNear, type PageSnapshot } from '../../src/insights/page-snapshot/page-snapshot.js';
import { pageKeysOfFile } from '../../src/jobs/pull-requests/pull-request-index.js';
import { pagePreview, plainPagePreview, trend } from '../../src/slack/messages/unfurls.js';
import { FakeSlackUnfurls } from '../support/fake-slack-unfurls.js';
import { hasInvisible, hostileText, liveMarkup } from '../support/hostile-text.js';
import { checkMessage } from '../support/slack-block-kit-limits.js';

const SITE = 'https://docs.acme.dev';

function snapshotWith(text: string): PageSnapshot {
  return {
    projectId: 'proj',
    path: `/guides/${text}`,
    range: { from: '2026-03-01', toExclusive: '2026-03-08' },
    previous: { from: '2026-02-22', toExclusive: '2026-03-01' },
    views: { current: { human: 12, ai: 3 }, previous: { human: 0, ai: 6 } },
    viewsPartial: false,
    thumbsDown: 2,
    thumbsUp: 0,
    comments: [text, text],
    nearbySearches: [{ query: text, hits: 5 }],
    removed: 0,
    fetchedAt: 0,
  };
}

describe('docs links', () => {
  it('finds the page of a link on DOCS_SITE_URL, and nothing else', () => {
    expect(docsPagePath(`${SITE}/guides/auth/?x=1#top`, SITE)).toBe('/guides/auth');
    expect(docsPagePath('https://DOCS.acme.dev/a%20b', SITE)).toBe('/a b');
    expect(docsPagePath(`${SITE}/guides`, undefined)).toBeUndefined();
    expect(docsPagePath('https://docs.acme.dev.evil.example/guides', SITE)).toBeUndefined();
    expect(docsPagePath('https://u:p@docs.acme.dev/guides', SITE)).toBeUndefined();
    expect(docsPagePath('javascript:alert(1)', SITE)).toBeUndefined();
    expect(docsPagePath(`${SITE}/%E0%A4%A`, SITE)).toBeUndefined();
    expect(docsPagePath('https://acme.dev/blog/x', 'https://acme.dev/docs')).toBeUndefined();
    expect(docsPagePath('https://acme.dev/docs/x', 'https://acme.dev/docs')).toBe('/docs/x');
  });

  it('maps a changed docs file to the page paths it may be served at, boundedly', () => {
    expect(pageKeysOfFile('docs/guides/auth.mdx')).toEqual(['docs/guides/auth', 'guides/auth', 'auth']);
    expect(pageKeysOfFile('guides/setup/index.md')).toEqual(['guides/setup', 'setup']);
    expect(pageKeysOfFile('a/b/c/d/e/f.md')).toHaveLength(4);
    expect(pageKeysOfFile('package.json')).toEqual([]);
    expect(pageKeysOfFile(`${'x/'.repeat(200)}a.md`)).toEqual([]);
  });

  it('counts a search near a page when it shares a word with the path or landed on it', () => {
    const row = (searchQuery: string, topClickedPage: string | null = null) => ({
      searchQuery,
      hits: 1,
      ctr: 0,
      topClickedPage,
    });
    expect(isNear(row('how to rotate an api key'), '/guides/rotate-keys')).toBe(true);
    expect(isNear(row('billing'), '/guides/rotate-keys')).toBe(false);
    expect(isNear(row('docs guide'), '/docs/guides/x')).toBe(false);
    expect(isNear(row('zzz', '/guides/rotate-keys/'), '/guides/rotate-keys')).toBe(true);
    // Pathological input is capped before it is split.
    expect(isNear(row('a'.repeat(100_000)), '/guides/aaa')).toBe(false);
  });

  it('says how this week compares with the week before', () => {
    expect(trend(120, 100)).toBe(' (▲ 20%)');
    expect(trend(50, 100)).toBe(' (▼ 50%)');
    expect(trend(5, 0)).toBe(' (new)');
    expect(trend(0, 0)).toBe('');
    expect(trend(100, 100)).toBe(' (no change)');
  });
});

describe('page previews of hostile reader text', () => {
  it('stay within Block Kit limits, with no live markup or invisible characters from readers', () => {
    fc.assert(
      fc.property(hostileText(), (text) => {
        const snapshot = snapshotWith(text);
        const evidence = evidenceOf(snapshot);
        const preview = pagePreview(`${SITE}/x`, { snapshot, evidence }, 'docs.acme.dev');
        expect(checkMessage({ text: preview.text, blocks: preview.blocks })).toEqual({ ok: true });
        // What Slack shows (the button's value is data, not shown).
        const shown = JSON.stringify(preview.blocks.map((b) => ({ ...b, accessory: undefined })));
        expect(liveMarkup(shown)).toEqual([]);
        const value = (preview.blocks[0] as { accessory: { value: string } }).accessory.value;
        expect(value.length).toBeLessThanOrEqual(2000);
        expect(decodeEvidenceRef(value)?.kind).toBe('page');
        const plain = plainPagePreview(`${SITE}/x`, snapshot.path, 'docs.acme.dev');
        expect(checkMessage({ text: plain.text, blocks: plain.blocks })).toEqual({ ok: true });
        expect(liveMarkup(JSON.stringify(plain.blocks))).toEqual([]);
        expect(hasInvisible(JSON.stringify([plain.blocks, shown]))).toBe(false);
      }),
      { numRuns: 60 },
    );
  });

  it('hands nearby searches and views to the agent as quoted reader data', () => {
    const evidence = evidenceOf(snapshotWith('rotate'));
    const instruction = instructionFor(evidence);
    expect(instruction).toContain('Views in this range: 12 by people and 3 by AI');
    expect(instruction).toContain(`${READER_INPUT_OPEN} rotate ${READER_INPUT_CLOSE}`);
    expect(decodeEvidenceRef(encodeEvidenceRef(evidence))).toMatchObject({
      nearbySearches: ['rotate'],
      pageViews: evidence.pageViews,
    });
  });
});

describe('fake Slack chat.unfurl', () => {
  const url = `${SITE}/a`;
  const fake = () => {
    const f = new FakeSlackUnfurls();
    f.share({ channel: 'C1', ts: '1.1', unfurlId: 'U1', source: 'conversations_history', urls: [url] });
    return f;
  };
  const preview = { blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'hi' } }] };

  it('refuses what Slack refuses', () => {
    const f = fake();
    const answer = (args: Record<string, unknown>) => f.answer('chat.unfurl', args)?.error;
    expect(answer({ unfurls: { [url]: preview } })).toBe('invalid_arguments');
    expect(answer({ unfurl_id: 'U1', unfurls: { [url]: preview } })).toBe('invalid_arguments');
    expect(answer({ unfurl_id: 'U1', source: 'x', unfurls: { [url]: preview } })).toBe('invalid_source');
    expect(answer({ unfurl_id: 'U2', source: 'composer', unfurls: {} })).toBe('invalid_unfurl_id');
    expect(answer({ channel: 'C1', ts: '9.9', unfurls: {} })).toBe('cannot_find_message');
    expect(answer({ channel: 'C1', ts: '1.1' })).toBe('missing_unfurls');
    expect(answer({ channel: 'C1', ts: '1.1', unfurls: { [`${url}/other`]: preview } })).toBe(
      'cannot_unfurl_url',
    );
    const tooMany = { blocks: Array.from({ length: 51 }, () => preview.blocks[0]) };
    expect(answer({ channel: 'C1', ts: '1.1', unfurls: { [url]: tooMany } })).toBe('invalid_blocks');
    expect(answer({ channel: 'C1', ts: '1.1', metadata: { entities: [{ entity_type: 'x' }] } })).toBe(
      'invalid_metadata',
    );
    expect(f.previewsOf('C1', '1.1').size).toBe(0);
  });

  it('keys previews by URL and replaces them on a repeat', () => {
    const f = fake();
    f.answer('chat.unfurl', {
      unfurl_id: 'U1',
      source: 'conversations_history',
      unfurls: { [url]: preview },
    });
    const again = { blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'again' } }] };
    expect(f.answer('chat.unfurl', { channel: 'C1', ts: '1.1', unfurls: { [url]: again } })).toEqual({
      ok: true,
    });
    expect(f.previewsOf('C1', '1.1').size).toBe(1);
    expect(JSON.stringify(f.previewsOf('C1', '1.1').get(url))).toContain('again');
  });
});
