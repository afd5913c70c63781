import { SENSITIVITIES, type Sensitivity } from './rules.js';

export type AlertsCommand =
  | { kind: 'alerts_status' }
  | { kind: 'alerts_on'; sensitivity: Sensitivity }
  | { kind: 'alerts_off' }
  | { kind: 'invalid'; token: string; problem: string };

const isSensitivity = (word: string): word is Sensitivity =>
  (SENSITIVITIES as readonly string[]).includes(word);

/**
 * `alerts`, `alerts on [sensitivity low|normal|high]` (the word `sensitivity` optional, default normal) and
 * `alerts off`; undefined when the text is not an alerts command at all. Tokens are compared, never matched
 * with a backtracking pattern.
 */
export function parseAlertsCommand(text: string | undefined): AlertsCommand | undefined {
  const tokens = (text ?? '')
    .trim()
    .slice(0, 200)
    .split(/\s+/)
    .filter(Boolean)
    .map((t) => t.toLowerCase());
  if (tokens[0] !== 'alerts' && tokens[0] !== 'alert') return undefined;
  const [, action, ...rest] = tokens;
  if (action === undefined || action === 'status') {
    return rest.length === 0 ? { kind: 'alerts_status' } : extra(rest[0]!);
  }
  if (action === 'off') return rest.length === 0 ? { kind: 'alerts_off' } : extra(rest[0]!);
  if (action !== 'on') {
    return {
      kind: 'invalid',
      token: action,
      problem: 'is not `on`, `off` or nothing (`alerts` shows the state)',
    };
  }
  const words = rest[0] === 'sensitivity' ? rest.slice(1) : rest;
  if (rest[0] === 'sensitivity' && words.length === 0)
    return { kind: 'invalid', token: 'sensitivity', problem: 'needs `low`, `normal` or `high` after it' };
  if (words.length === 0) return { kind: 'alerts_on', sensitivity: 'normal' };
  const [word, ...after] = words;
  if (!isSensitivity(word!))
    return { kind: 'invalid', token: word!, problem: 'is not a sensitivity: use `low`, `normal` or `high`' };
  return after.length === 0 ? { kind: 'alerts_on', sensitivity: word } : extra(after[0]!);
}

const extra = (token: string): AlertsCommand => ({ kind: 'invalid', token, problem: 'is unexpected here' });
