import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';

/**
 * The docs platform's published OpenAPI specs (vendored in `test/fixtures/openapi/`; `.ci/run` checks the
 * copies against the published ones when they are beside the repo) as response validators, so the fake docs
 * platform can only answer what the specs allow.
 */

type Json = Record<string, unknown>;
interface Spec {
  id: 'admin' | 'analytics';
  doc: Json;
  /** The spec's error schema, for the statuses the reference README adds to every operation. */
  errorSchema: string;
}

const fixtures = new URL('../fixtures/openapi/', import.meta.url);
const load = (name: string) => JSON.parse(readFileSync(new URL(name, fixtures), 'utf8')) as Json;

const SPECS: Spec[] = [
  { id: 'admin', doc: load('admin-openapi.json'), errorSchema: 'Error' },
  { id: 'analytics', doc: load('analytics.openapi.json'), errorSchema: 'AnalyticsErrorResponse' },
];

/**
 * Statuses the reference README documents beyond the specs: 401 (wrong key) and 403 (scope, IP allowlist)
 * on every call, and 404 for a project or path the platform does not know. Their bodies must still be the
 * spec's error object.
 */
const PLATFORM_WIDE_STATUSES = new Set([401, 403, 404]);

const ajv = new Ajv({ strict: false, allErrors: true });
// The formats the specs use, checked as the platform would produce them.
ajv.addFormat('uri', (value: string) => URL.canParse(value));
ajv.addFormat('date-time', (value: string) =>
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value),
);
ajv.addFormat('ulid', /^[0-9A-HJKMNP-TV-Z]{26}$/);
for (const spec of SPECS) ajv.addSchema(spec.doc, spec.id);

const compiled = new Map<string, ValidateFunction>();

function validator(spec: Spec, schema: Json): ValidateFunction {
  // Local `#/components/...` refs point into the spec they came from.
  const text = JSON.stringify(schema).replaceAll('"$ref":"#/', `"$ref":"${spec.id}#/`);
  let validate = compiled.get(text);
  if (!validate) {
    validate = ajv.compile(JSON.parse(text) as Json);
    compiled.set(text, validate);
  }
  return validate;
}

function findOperation(method: string, path: string): { spec: Spec; operation: Json } | undefined {
  for (const spec of SPECS) {
    const paths = spec.doc.paths as Record<string, Record<string, Json>>;
    for (const [template, item] of Object.entries(paths)) {
      const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      const operation = item[method.toLowerCase()];
      if (operation && pattern.test(path)) return { spec, operation };
    }
  }
  return undefined;
}

/** Why this response breaks the published contract, or undefined when the specs allow it. */
export function contractViolation(
  method: string,
  path: string,
  status: number,
  body: unknown,
): string | undefined {
  const found = findOperation(method, path);
  if (!found) {
    if (status !== 404) return `${method} ${path} is no operation of the specs, yet answered ${status}`;
    return undefined;
  }
  const { spec, operation } = found;
  const responses = operation.responses as Record<string, Json>;
  const documented = responses[String(status)];
  let schema: Json;
  if (documented) {
    const content = documented.content as Record<string, { schema: Json }> | undefined;
    const json = content?.['application/json'];
    if (!json) return body === undefined ? undefined : `${status} is documented without a body`;
    schema = json.schema;
  } else if (PLATFORM_WIDE_STATUSES.has(status)) {
    schema = { $ref: `#/components/schemas/${spec.errorSchema}` };
  } else {
    return `${method} ${path} answered ${status}, which the ${spec.id} spec does not document (${Object.keys(responses).join(', ')})`;
  }
  const validate = validator(spec, schema);
  if (validate(body)) return undefined;
  const problems = (validate.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message}`);
  return `${method} ${path} ${status} breaks the ${spec.id} spec: ${problems.join('; ')}`;
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: Json;
}

/** A query value as the spec types it: integers and numbers are read as JSON numbers, the rest as strings. */
function queryValue(raw: string, schema: Json | undefined): unknown {
  const type = schema?.type;
  if ((type === 'integer' || type === 'number') && raw.trim() !== '' && Number.isFinite(Number(raw)))
    return Number(raw);
  return raw;
}

function resolveParameter(spec: Spec, parameter: Json): Parameter {
  const ref = parameter.$ref;
  if (typeof ref !== 'string') return parameter as unknown as Parameter;
  const name = ref.split('/').pop() ?? '';
  const components = spec.doc.components as { parameters?: Record<string, Json> } | undefined;
  return (components?.parameters?.[name] ?? {}) as unknown as Parameter;
}

/**
 * Why the platform would refuse this request of the bot's, as the specs describe it: a path or query
 * parameter outside its schema, a query parameter the operation does not take, a missing or malformed JSON
 * body. Answered with the operation's documented 400 and the spec's error object; undefined when the
 * request is well formed (or the operation documents no 400, so the platform names no refusal).
 */
export function requestViolation(
  method: string,
  path: string,
  query: URLSearchParams,
  body: unknown,
): { status: 400; body: Json; problems: string[] } | undefined {
  const found = findOperation(method, path);
  if (!found) return undefined;
  const { spec, operation } = found;
  if (!(operation.responses as Json)['400']) return undefined;
  const template = Object.entries(spec.doc.paths as Record<string, Record<string, Json>>).find(
    ([, item]) => item[method.toLowerCase()] === operation,
  )?.[0];
  const names = [...(template ?? '').matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
  const values =
    new RegExp(`^${(template ?? '').replace(/\{[^}]+\}/g, '([^/]+)')}$`).exec(path)?.slice(1) ?? [];
  const parameters = ((operation.parameters ?? []) as Json[]).map((p) => resolveParameter(spec, p));
  const problems: string[] = [];
  const check = (where: string, value: unknown, schema: Json | undefined) => {
    if (!schema) return;
    const validate = validator(spec, schema);
    if (!validate(value))
      for (const e of validate.errors ?? []) problems.push(`${where}${e.instancePath} ${e.message}`);
  };
  for (const parameter of parameters) {
    if (parameter.in === 'path') {
      const raw = values[names.indexOf(parameter.name)];
      check(parameter.name, raw === undefined ? undefined : decodeURIComponent(raw), parameter.schema);
    } else if (parameter.in === 'query') {
      const raw = query.get(parameter.name);
      if (raw === null) {
        if (parameter.required) problems.push(`${parameter.name} is required`);
      } else check(parameter.name, queryValue(raw, parameter.schema), parameter.schema);
    }
  }
  const known = new Set(parameters.filter((p) => p.in === 'query').map((p) => p.name));
  for (const name of new Set(query.keys()))
    if (!known.has(name)) problems.push(`${name} is not a query parameter of ${method} ${template}`);
  const requestBody = operation.requestBody as
    | { required?: boolean; content?: Record<string, { schema: Json }> }
    | undefined;
  const bodySchema = requestBody?.content?.['application/json']?.schema;
  if (bodySchema) {
    if (body === undefined) {
      if (requestBody?.required) problems.push('body is required');
    } else check('body', body, bodySchema);
  }
  if (problems.length === 0) return undefined;
  // As the platform words them: analytics names the query and lists each problem, the admin API says it.
  const details = problems.map((message) => ({ message }));
  const answer =
    spec.id === 'analytics' ? { error: 'Invalid query parameters', details } : { error: problems.join('; ') };
  return { status: 400, body: answer, problems };
}

/** requestViolation for the fake's request, noted in `violations` and on stderr as contract drift is. */
export function requestRefusal(
  request: { method: string; path: string; query: URLSearchParams; body: unknown },
  violations: string[],
): { status: 400; body: Json } | undefined {
  const refused = requestViolation(request.method, request.path, request.query, request.body);
  if (!refused) return undefined;
  violations.push(`${request.method} ${request.path}: ${refused.problems.join('; ')}`);
  process.stderr.write(`fake-docs refused a request: ${violations.at(-1)}\n`);
  return refused;
}
