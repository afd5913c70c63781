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
process.stdout.write(`manifest.yml matches ${schemaPath}\n`);
