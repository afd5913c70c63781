import { describe, expect, it } from 'vitest';
import { mrkdwn, renderBlocks } from '../../demo/render-blocks.js';

/** The playground draws text from the bot, which quotes people: nothing in it may become markup. */
describe('the playground renders Block Kit with everything escaped', () => {
  it('escapes markup in mrkdwn, plain text, values and chart labels', () => {
    const hostile = '<img src=x onerror=alert(1)> "quoted" \'single\' &amp;';
    const html = renderBlocks([
      { type: 'section', text: { type: 'mrkdwn', text: hostile } },
      { type: 'header', text: { type: 'plain_text', text: hostile } },
      {
        type: 'actions',
        elements: [
          {
            type: 'button',
            action_id: 'a"b',
            value: '"><script>x</script>',
            text: { type: 'plain_text', text: hostile },
          },
        ],
      },
      {
        type: 'data_visualization',
        title: hostile,
        chart: {
          type: 'bar',
          series: [{ name: hostile, data: [{ label: 'd', value: 1 }] }],
          axis_config: { categories: [hostile] },
        },
      },
    ]);
    expect(html).not.toMatch(/<img|<script|onerror=alert\(1\)>/);
    expect(html).not.toContain('"quoted"');
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62;');
  });

  it('links only http(s) and mailto targets, and shows mentions by name', () => {
    expect(mrkdwn('<javascript:alert(1)|click>')).toContain('href="#"');
    expect(mrkdwn('<https://docs.acme.dev/a?b=1&amp;c=2|page>')).toContain(
      'href="https://docs.acme.dev/a?b=1&#38;c=2"',
    );
    expect(mrkdwn('<@U0DEMOALEX> *done*')).toBe('<span class="mention">@alex</span> <b>done</b>');
  });
});

/** Issue 46 §6: the playground draws what Slack draws, not the markup behind it. */
describe('the playground draws Slack faithfully', () => {
  it('shows every emoji the bot writes as an emoji, in mrkdwn, plain text and rich text', () => {
    const html = mrkdwn(
      ':rotating_light: :large_purple_circle: :information_source: :tada: :+1::skin-tone-2:',
    );
    expect(html).toBe('🚨 🟣 ℹ️ 🎉 👍');
    expect(
      renderBlocks([{ type: 'header', text: { type: 'plain_text', text: ':bell: Alerts', emoji: true } }]),
    ).toContain('🔔 Alerts');
    const rich = renderBlocks([
      {
        type: 'rich_text',
        elements: [{ type: 'rich_text_section', elements: [{ type: 'emoji', name: 'link' }] }],
      },
    ]);
    expect(rich).toContain('🔗');
    // A name the playground does not know stays readable, and a clock time is not an emoji.
    expect(mrkdwn(':custom_thing: at 14:05:00')).toBe(':custom_thing: at 14:05:00');
  });

  it('draws > lines as one quote, with or without a space', () => {
    expect(mrkdwn('Said:\n>first\n> second\nafter')).toBe(
      'Said:<br><blockquote>first<br>second</blockquote>after',
    );
  });

  it('draws a date token as a time the page shows in the reader’s zone, keeping the fallback', () => {
    const html = mrkdwn('merged <!date^1796600000^{date_short_pretty} at {time}|2026-12-07 00:53 UTC>');
    expect(html).toContain(
      '<time class="slack-date" data-epoch="1796600000" data-format="{date_short_pretty} at {time}">',
    );
    expect(html).toContain('2026-12-07 00:53 UTC</time>');
    expect(html).not.toContain('!date');
  });

  it('draws a line chart as lines, one per series, and a bar chart as bars', () => {
    const series = (type: string) => ({
      type: 'data_visualization',
      title: 'Views',
      chart: {
        type,
        series: [
          {
            name: 'Human',
            data: [
              { label: 'a', value: 1 },
              { label: 'b', value: 3 },
              { label: 'c', value: 2 },
            ],
          },
          {
            name: 'AI',
            data: [
              { label: 'a', value: 0 },
              { label: 'b', value: 1 },
              { label: 'c', value: 1 },
            ],
          },
        ],
        axis_config: { categories: ['Mon', 'Tue', 'Wed'] },
      },
    });
    const line = renderBlocks([series('line')]);
    expect(line.match(/<polyline class="series"/g)).toHaveLength(2);
    expect(line).not.toContain('class="col"');
    expect(renderBlocks([series('bar')]).match(/class="col"/g)).toHaveLength(6);
  });

  it('draws a primary link button green and a URL as a link', () => {
    const html = renderBlocks([
      {
        type: 'actions',
        elements: [
          {
            type: 'button',
            style: 'primary',
            url: 'https://github.com/acme/docs/pull/1',
            text: { type: 'plain_text', text: 'View pull request' },
          },
        ],
      },
    ]);
    expect(html).toContain('class="btn primary" href="https://github.com/acme/docs/pull/1"');
  });

  it('draws a data table: caption, header, the first page of rows (numbers right), a pager; all escaped', () => {
    const hostile = '<img src=x onerror=alert(1)>';
    const html = renderBlocks([
      {
        type: 'data_table',
        caption: `Top 2 pages ${hostile}`,
        page_size: 1,
        rows: [
          [
            { type: 'raw_text', text: 'Page' },
            { type: 'raw_text', text: 'Views' },
          ],
          [
            { type: 'raw_text', text: hostile },
            { type: 'raw_number', value: 1200, text: '1,200' },
          ],
          [
            { type: 'raw_text', text: '/second' },
            { type: 'raw_number', value: 900, text: '900' },
          ],
        ],
      },
    ]);
    expect(html).toContain('<table class="b-table"><caption>Top 2 pages &#60;img');
    expect(html).toContain('<th>Page</th><th>Views</th>');
    expect(html).toContain('<td class="num">1,200</td>');
    expect(html).not.toContain('/second');
    expect(html).toContain('1–1 of 2');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('unsupported');
  });
});
