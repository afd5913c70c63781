import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { parse } from 'yaml';

/*
 * Validates manifest.yml against Slack's published app-manifest JSON schema. The schema is not part of the
 * repository: `.ci/run` runs this beside `../shared/reference/`, or pass the schema's path as the argument.
 * `npm test` checks what the project owns (manifest.test.ts) and never reads outside the repository.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const schemaPath = process.argv[2] ?? join(ROOT, '..', 'shared', 'reference', 'slack-manifest.schema.json');

if (!existsSync(schemaPath)) {
  process.stderr.write(`check-manifest: no schema at ${schemaPath}; pass its path as the first argument\n`);
  process.exit(2);
}
const schema = JSON.parse(readFileSync(schemaPath, 'utf8')) as Record<string, unknown>;
// Ajv knows draft-07 without the meta-schema reference Slack's file carries.
delete schema.$schema;
const manifest: unknown = parse(readFileSync(join(ROOT, 'manifest.yml'), 'utf8'));
const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);
if (!validate(manifest)) {
  for (const error of validate.errors ?? []) {
    process.stderr.write(`manifest.yml${error.instancePath || '/'} ${error.message ?? 'is invalid'}\n`);
  }
  process.exit(1);
}
// Slack's schema allows an app without the AI container's pieces; the bot needs them together.
const problems = [
  ...assistantProblems(manifest as AssistantManifest),
  ...lookupProblems(manifest as AssistantManifest),
];
if (problems.length > 0) {
  for (const problem of problems) process.stderr.write(`manifest.yml: ${problem}\n`);
  process.exit(1);
}
process.stdout.write(`manifest.yml matches ${schemaPath}\n`);

interface AssistantManifest {
  features?: {
    agent_view?: { suggested_prompts?: unknown[] };
    assistant_view?: { suggested_prompts?: unknown[] };
  };
  oauth_config?: { scopes?: { bot?: string[] } };
  settings?: { event_subscriptions?: { bot_events?: string[] } };
}

/** The AI app container needs its view, `assistant:write`, its two events and message.im, all together. */
function assistantProblems(m: AssistantManifest): string[] {
  const view = m.features?.agent_view ?? m.features?.assistant_view;
  const events = new Set(m.settings?.event_subscriptions?.bot_events ?? []);
  const scopes = new Set(m.oauth_config?.scopes?.bot ?? []);
  const problems: string[] = [];
  if (!view) problems.push('features.agent_view (the AI app container) is missing');
  else if ((view.suggested_prompts ?? []).length === 0 || (view.suggested_prompts ?? []).length > 4)
    problems.push('the AI app container needs 1 to 4 suggested_prompts');
  if (!scopes.has('assistant:write')) problems.push('bot scope assistant:write is missing');
  for (const event of ['assistant_thread_started', 'assistant_thread_context_changed', 'message.im'])
    if (!events.has(event)) problems.push(`bot event ${event} is missing`);
  return problems;
}

/**
 * Whether a post that timed out landed is looked up in the conversation's history, in every kind of
 * conversation the bot posts in: without a type's history scope, owed replies there could never be checked.
 */
function lookupProblems(m: AssistantManifest): string[] {
  const scopes = new Set(m.oauth_config?.scopes?.bot ?? []);
  return ['channels:history', 'groups:history', 'im:history', 'mpim:history']
    .filter((scope) => !scopes.has(scope))
    .map((scope) => `bot scope ${scope} is missing (look-ups of owed posts need it)`);
}
