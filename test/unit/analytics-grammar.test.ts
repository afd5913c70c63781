import { describe, expect, it } from 'vitest';
import { DEFAULT_RANGE } from '../../src/insights/ranges/dates.js';
import { type PageViewsCommand, parsePageViewsCommand } from '../../src/insights/ranges/grammar.js';

function report(text: string) {
  const parsed = parsePageViewsCommand(text);
  if (parsed.kind !== 'report') throw new Error(`expected a report, got ${JSON.stringify(parsed)}`);
  return parsed;
}

function invalid(text: string): Extract<PageViewsCommand, { kind: 'invalid' }> {
  const parsed = parsePageViewsCommand(text);
  if (parsed.kind !== 'invalid') throw new Error(`expected an error, got ${JSON.stringify(parsed)}`);
  return parsed;
}

describe('/docs-views grammar', () => {
  it('defaults to the last 7 full days, top 10, no prefix, no csv', () => {
    for (const text of ['', '   ', undefined]) {
      expect(parsePageViewsCommand(text)).toEqual({
        kind: 'report',
        params: { range: DEFAULT_RANGE, top: 10, prefix: undefined },
        csv: false,
      });
    }
  });

  it('reads help in its usual spellings', () => {
    for (const text of ['help', 'HELP', '-h', '--help', '?'])
      expect(parsePageViewsCommand(text)).toEqual({ kind: 'help' });
  });

  it.each([
    ['7d', { kind: 'days', days: 7 }],
    ['30d', { kind: 'days', days: 30 }],
    ['90D', { kind: 'days', days: 90 }],
    ['yesterday', { kind: 'yesterday' }],
    ['last-week', { kind: 'last-week' }],
    ['this-month', { kind: 'this-month' }],
    ['Last-Month', { kind: 'last-month' }],
    ['2024-02-01..2024-02-29', { kind: 'explicit', from: '2024-02-01', to: '2024-02-29' }],
    ['2025-03-05..2025-03-05', { kind: 'explicit', from: '2025-03-05', to: '2025-03-05' }],
  ])('reads the range %s', (token, range) => {
    expect(report(token).params.range).toEqual(range);
  });

  it('reads every option in any order', () => {
    const expected = {
      kind: 'report',
      params: { range: { kind: 'days', days: 30 }, top: 20, prefix: '/api' },
      csv: true,
    };
    expect(parsePageViewsCommand('30d top 20 /api csv')).toEqual(expected);
    expect(parsePageViewsCommand('csv /api top 20 30d')).toEqual(expected);
    expect(parsePageViewsCommand('  /api   CSV 30d  TOP 20 ')).toEqual(expected);
    expect(parsePageViewsCommand('top20 /api csv 30d')).toEqual(expected);
  });

  it('accepts top 1 and top 50, the bounds', () => {
    expect(report('top 1').params.top).toBe(1);
    expect(report('top 50').params.top).toBe(50);
  });

  it.each([
    ['367d', '367d', /1 to 366.*7d.*14d/],
    ['last-year', 'last-year', /not a range/],
    ['top', 'top', /needs a number/],
    ['top 0', '0', /1–50/],
    ['top 51', '51', /1–50/],
    ['top ten', 'ten', /not a number/],
    ['7d 30d', '30d', /second date range.*7d/],
    ['top 5 top 6', 'top', /second `top`/],
    ['/api /guides', '/guides', /second path prefix/],
    ['2025-02-30..2025-03-01', '2025-02-30..2025-03-01', /2025-02-30.*not a calendar date/],
    ['2025-03-10..2025-03-01', '2025-03-10..2025-03-01', /ends before it starts/],
    ['2025-03-01..', '2025-03-01..', /YYYY-MM-DD\.\.YYYY-MM-DD/],
    ['2020-01-01..2025-01-01', '2020-01-01..2025-01-01', /more than 366 days/],
    ['api', 'api', /starting with `\/`/],
    ['monday', 'monday', /schedule/],
    ['7d <@U123>', '<@U123>', /not a range/],
    ['schedules now', 'now', /no arguments/],
    ['unschedule please', 'please', /no arguments/],
  ])('rejects %j naming %j', (text, token, problem) => {
    const error = invalid(text);
    expect(error.token).toBe(token);
    expect(error.problem).toMatch(problem);
  });

  it('reads schedules with and without a time zone', () => {
    expect(parsePageViewsCommand('schedule monday 09:00 Europe/Berlin')).toEqual({
      kind: 'schedule',
      weekday: 1,
      hour: 9,
      minute: 0,
      timeZone: 'Europe/Berlin',
    });
    expect(parsePageViewsCommand('schedule Sun 7:05')).toEqual({
      kind: 'schedule',
      weekday: 0,
      hour: 7,
      minute: 5,
      timeZone: undefined,
    });
    expect(parsePageViewsCommand('schedules')).toEqual({ kind: 'schedules' });
    expect(parsePageViewsCommand('unschedule')).toEqual({ kind: 'unschedule' });
  });

  it.each([
    ['schedule', 'schedule', /weekday and a time/],
    ['schedule someday 09:00', 'someday', /not a weekday/],
    ['schedule monday', 'monday', /needs a time/],
    ['schedule monday 24:00', '24:00', /24-hour time/],
    ['schedule monday 9am', '9am', /24-hour time/],
    ['schedule monday 09:00 Mars/Olympus', 'Mars/Olympus', /IANA time zone/],
    ['schedule monday 09:00 UTC extra', 'extra', /unexpected/],
  ])('rejects the schedule %j naming %j', (text, token, problem) => {
    const error = invalid(text);
    expect(error.token).toBe(token);
    expect(error.problem).toMatch(problem);
  });
});
