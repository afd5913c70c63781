import { afterEach, describe, expect, it } from 'vitest';
import type { ViewRow } from '../support/fake-docs.js';
import { waitFor } from '../support/http.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

/** RFC 4180 records (quoted fields may hold commas, quotes, CR and LF), in one linear pass. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i++;
    } else field += c;
  }
  return records;
}

const row = (path: string, total: number): ViewRow => ({ path, total, human: total - 1, ai: 1 });

describe('/docs-views … csv carries every path whole', () => {
  it('exports a 5,000-character path whole (and one differing only after 2,000), formula cells prefixed', async () => {
    app = await startTestApp();
    const long = `/guides/${'deep-section/'.repeat(400)}`.slice(0, 5_000);
    // Same first 4,990 characters: a cap at 2,000 would have merged the two into one row.
    const twin = `${long.slice(0, 4_990)}yyyyyyyyyy`;
    const hostile = ['=HYPERLINK("https://evil.example","open")', '+1+1', '-2', '@SUM(A1)', '\tcmd', '\rcmd'];
    app.docs.defaultViews = [
      row(long, 900),
      row(twin, 800),
      row('/docs/plain, with "quotes"', 700),
      ...hostile.map((path, i) => row(path, 600 - i)),
    ];

    await app.command({ command: '/docs-views', text: 'csv last-week top 3' });
    await app.slack.waitForCall('files.completeUploadExternal');
    const upload = await waitFor(() => app!.slack.uploads[0], { what: 'uploaded CSV' });
    const [header, ...records] = parseCsv(upload.content);

    expect(header).toEqual(['rank', 'path', 'total', 'human', 'ai']);
    expect(records).toHaveLength(9);
    expect(long).toHaveLength(5_000);
    expect(records[0]).toEqual(['1', long, '900', '899', '1']);
    expect(records[1]).toEqual(['2', twin, '800', '799', '1']);
    expect(records[2]![1]).toBe('/docs/plain, with "quotes"');
    // A cell a spreadsheet would run as a formula starts with a quote: shown as text, the path after it.
    expect(records.slice(3).map((r) => r[1])).toEqual(hostile.map((path) => `'${path}`));

    // The report itself still caps what it shows: the long path is a short label, never 5,000 characters.
    const report = await waitFor(() => app!.slack.responses[0], { what: 'the report' });
    const shown = JSON.stringify(report.body);
    expect(shown).toContain(long.slice(0, 100));
    expect(shown).not.toContain(long.slice(0, 200));
  });
});
