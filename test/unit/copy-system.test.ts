import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { INSTANT_TOKEN } from '../../src/slack/copy/dates.js';
import { OTHER_SPELLINGS } from '../../src/slack/copy/product-name.js';
import { JOB_ID, type Module, PROJECT_ID, type Renders } from '../support/copy-fixtures.js';
import { HELPERS } from '../support/copy-helpers.js';
import { RENDERS as BASIC } from '../support/copy-renders.js';
import { FORM_RENDERS } from '../support/copy-renders-forms.js';
import { MORE_RENDERS } from '../support/copy-renders-more.js';
import { REPLY_RENDERS } from '../support/copy-renders-replies.js';
import { SHARED_RENDERS } from '../support/copy-renders-shared.js';

/*
 * Issue 46 §3, one copy system: every message kind (every exported builder of src/slack/messages, rendered
 * from the playground's demo data in a few states) is held to the same words. No operator's words (env
 * variable names, HTTP status codes, Slack error codes, "state store", "p <"), no raw ids, one date style,
 * one product name. A builder that is neither rendered nor named a helper fails the enumeration.
 */
const RENDERS: Renders = { ...BASIC };
for (const more of [REPLY_RENDERS, MORE_RENDERS, SHARED_RENDERS, FORM_RENDERS])
  for (const [file, renders] of Object.entries(more)) RENDERS[file] = { ...RENDERS[file], ...renders };

const DIR = fileURLToPath(new URL('../../src/slack/messages/', import.meta.url));
const FILES = readdirSync(DIR).filter((f) => f.endsWith('.ts') && f !== 'types.ts');

/** Keys whose string values people read (never action ids, values, urls or metadata). */
const READ_KEYS = new Set([
  'text',
  'title',
  'alt_text',
  'fallback',
  'details',
  'description',
  'label',
  'message',
]);

function texts(value: unknown, key = 'text', out: string[] = []): string[] {
  if (typeof value === 'string') {
    if (READ_KEYS.has(key)) out.push(value);
  } else if (Array.isArray(value)) for (const v of value) texts(v, key, out);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value))
      if (READ_KEYS.has(k) || typeof v === 'object') texts(v, k, out);
  return out;
}

const MONTH_FIRST = /\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{1,2}\b/;
const SLACK_ERROR_CODES =
  /\b(?:not_in_channel|channel_not_found|is_archived|restricted_action|cant_post_message|msg_too_long|msg_blocks_too_long|invalid_blocks|invalid_blocks_format|too_many_blocks|ratelimited|rate_limited|invalid_auth|missing_scope|not_authed|token_revoked|account_inactive|no_permission|access_denied|slack_queue_full|card_not_confirmed|shutting_down|state_unavailable|not_found|invalid_request|bad_response)\b/;

/** What a text breaks of the copy system, if anything. */
function copyProblems(text: string): string[] {
  const problems: string[] = [];
  for (const token of text.matchAll(/<!date\^\d+\^([^|>]*)/g))
    if (token[1] !== INSTANT_TOKEN) problems.push(`a second date style: ${token[0]}`);
  // What Slack renders itself is not words: mentions, channels, dates, links' targets; emoji names.
  const words = text
    .replace(/<[@#!][^>]*>/g, ' ')
    .replace(/<[^|>]*\|([^>]*)>/g, '$1')
    .replace(/<https?:[^>]*>/g, ' ')
    .replace(/:[a-z0-9_+-]+:/g, ' ')
    .replace(/https?:\/\/\S+/g, ' ');
  const outsideCode = words.replace(/`[^`]*`/g, ' ');
  const checks: Array<[RegExp, string]> = [
    [/\b[A-Z]{2,}_[A-Z_]{2,}\b/, 'an environment variable name'],
    // (a status code as a docs topic, "the new 429 response", is an instruction's words, not ours)
    [
      /\bHTTP [1-5]\d\d\b|\((?:40[0-9]|429|50[0-9])\)|(?:^|\s)(?:401|403|404|429|500|502|503)(?=[\s.,;:)]|$)(?! response)/,
      'an HTTP status code',
    ],
    [SLACK_ERROR_CODES, 'a Slack error code'],
    [/state store/i, '"state store"'],
    [/\bp\s*[<≤]/, 'a p-value'],
    [/whoever runs/i, '"whoever runs docs-agent" (name the managers or a workspace admin)'],
    [/(?:^|[^<@A-Z0-9])U0[A-Z0-9]{4,}\b/, 'a raw user id outside <@…>'],
    [OTHER_SPELLINGS, 'a second product-name spelling'],
  ];
  for (const [pattern, what] of checks) {
    const found = pattern.exec(words);
    if (found) problems.push(`${what}: ${JSON.stringify(found[0].trim())}`);
  }
  // Days in a code span are what people type (`2025-03-01..2025-03-07`); in words, one style.
  for (const [pattern, what] of [
    [/\b\d{4}-\d{2}-\d{2}\b/, 'ISO day'],
    [MONTH_FIRST, 'month first'],
  ] as const) {
    const found = pattern.exec(outsideCode);
    if (found) problems.push(`a second date style (${what}): ${found[0]}`);
  }
  // A job id is shown only in a code span, where `/docs-agent status <job id>` takes it from.
  if (outsideCode.includes(JOB_ID)) problems.push(`a raw job id: ${JOB_ID}`);
  // A project id likewise: in a code span it is what a manager typed in the connect form.
  if (/\bproj_[A-Za-z0-9]/.test(outsideCode)) problems.push('a raw project id');
  return problems;
}

/** Notices: what happened and what to do, in two sentences at most (issue 46 §3). */
const NOTICES: Record<string, string[]> = {
  'failures.ts': ['describeDocsFailure', 'describeSlackDeliveryFailure', 'reconnectKeyText'],
  'job-replies.ts': ['privateNoticeMessage', 'startFailureNotice', 'followUpRefusedMessage'],
  'page-views-replies.ts': ['describePageViewsFailure', 'describeUploadFailure', 'describePostFailure'],
  'job-feedback.ts': ['feedbackAnswerText'],
  'job-list.ts': ['jobStatusErrorMessage'],
  'project-settings.ts': ['keyRefusedText', 'platformUnavailableText'],
};

function sentences(text: string): number {
  const words = text
    .replace(/`[^`]*`/g, 'code')
    .replace(/<[^>]*>/g, 'link')
    .replace(/\b(?:e\.g|i\.e)\./g, 'eg');
  return (words.match(/[.!?](?=\s|$)/g) ?? []).length || 1;
}

describe('one copy system for every message (issue 46 §3)', () => {
  it('says each notice in two sentences at most', async () => {
    const long: string[] = [];
    for (const [file, names] of Object.entries(NOTICES)) {
      const module: Module = await import(`${DIR}${file}`);
      for (const name of names)
        for (const output of RENDERS[file]![name]!(module))
          for (const text of typeof output === 'string' ? [output] : texts(output))
            if (sentences(text) > 2) long.push(`${file} › ${name}: ${text}`);
    }
    expect(long).toEqual([]);
  });

  it('knows every export of src/slack/messages: each builder is rendered, each helper named with its reason', async () => {
    const unknown: string[] = [];
    for (const file of FILES) {
      const module: Module = await import(`${DIR}${file}`);
      for (const [name, value] of Object.entries(module))
        if (typeof value === 'function' && !RENDERS[file]?.[name] && !HELPERS[file]?.[name])
          unknown.push(`${file} › ${name}`);
    }
    expect(unknown).toEqual([]);
  });

  it.each(FILES)('%s: its messages and its exported copy keep to the copy system', async (file) => {
    const module: Module = await import(`${DIR}${file}`);
    const found: string[] = [];
    for (const [name, render] of Object.entries(RENDERS[file] ?? {}))
      for (const [i, output] of render(module).entries())
        for (const text of typeof output === 'string' ? [output] : texts(output))
          for (const problem of copyProblems(text))
            found.push(`${name} #${i}: ${problem} in ${JSON.stringify(text.slice(0, 160))}`);
    // Exported sentences (notices kept as constants) are copy too; action ids and block ids are not.
    for (const [name, value] of Object.entries(module))
      for (const text of typeof value === 'string'
        ? value.includes(' ')
          ? [value]
          : []
        : typeof value === 'object'
          ? texts(value)
          : [])
        for (const problem of copyProblems(text)) found.push(`${name}: ${problem}`);
    expect(found).toEqual([]);
  });

  it('catches what it is for', () => {
    expect(copyProblems('Set DOCS_PROJECT_ID and try again')).toHaveLength(1);
    expect(copyProblems('The platform answered HTTP 503')).toHaveLength(1);
    expect(copyProblems('Slack said not_in_channel')).toHaveLength(1);
    expect(copyProblems(`Project ${PROJECT_ID} by U0BOBBY3`)).toHaveLength(2);
    expect(copyProblems(`Job ${JOB_ID} failed`)).toHaveLength(1);
    expect(copyProblems(`Job \`${JOB_ID}\` by <@U0BOBBY3> <!date^1^{date_short} at {time}|x>`)).toEqual([]);
    expect(copyProblems('started <!date^1^{ago}|x>')).toHaveLength(1);
    expect(copyProblems('Ask Docs Agent')).toHaveLength(1);
  });
});
