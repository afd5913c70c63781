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
