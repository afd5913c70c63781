import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Tenants are sealed off by construction (issue 27): each tenant's runtime is the composition built once per
 * tenant, so everything stateful must be made there, per runtime, and nothing may be shared behind its back.
 * These rules keep it so: constructors of state, Slack and docs clients only where the composition (or the
 * edge it calls) makes them; no module-level mutable state outside src/composition; use cases never see a
 * tenant at all (they cannot forget one they never get).
 */
const SRC = join(import.meta.dirname, '..', '..', 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** The code without its comments (a comment may name anything), strings kept. */
function codeOf(file: string): string {
  return readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
}

const files = sourceFiles(SRC).map((file) => ({ path: relative(SRC, file), code: codeOf(file) }));
const under = (path: string, folders: string[]) =>
  folders.some((f) => path === f || path.startsWith(`${f}/`));

/** Who may make each stateful thing: the composition root, or the one edge module it calls to make it. */
const MAKERS: Array<{ what: string; call: RegExp; allowed: string[] }> = [
  { what: 'state adapter sets', call: /(?<!function )\bcreateAdapters\(/, allowed: ['composition'] },
  {
    what: 'memory or Redis adapter sets (only through createAdapters)',
    call: /(?<!function )\b(memoryAdapters|redisAdapters)\(/,
    allowed: ['state/adapters.ts'],
  },
  {
    what: 'Slack apps (a gateway, its pacing, a WebClient with a token) and front doors',
    call: /(?<!function )\b(createTenantSlackApp|createEdgeApp|createFrontDoor)\(/,
    allowed: ['composition'],
  },
  {
    what: 'receivers of Slack requests (one front door per process, both modes)',
    call: /\bnew (HTTPReceiver|SocketModeReceiver)\(/,
    allowed: ['slack/front-door.ts'],
  },
  {
    what: 'Bolt apps and WebClients',
    call: /\bnew (App|WebClient|TokenClient|webApi\.WebClient)\(|(?<!function )\bboltApp\(/,
    // Token refresh (oauth.v2.access) uses a client with no token: each call names its tenant's refresh token;
    // so does the installer's look at a re-installer's role (users.info with the new installation's token).
    allowed: [
      'slack/oauth/installer.ts',
      'slack/bolt-core.ts',
      'slack/edge-app.ts',
      'slack/oauth/token-refresh.ts',
      'slack/web-clients.ts',
    ],
  },
  {
    what: 'Slack gateways',
    call: /\bnew SlackGateway\(/,
    allowed: ['slack/bolt-core.ts'],
  },
  {
    what: 'docs platform clients (one per runtime; per-project clients come from it)',
    call: /\bnew DocsApiClient\(/,
    allowed: ['composition', 'platform/docs-client.ts'],
  },
  {
    what: 'GitHub clients',
    call: /\bnew (GitHubPullRequests|GitHub)\(/,
    allowed: ['composition', 'github/github-client.ts'],
  },
  {
    what: 'tenant directories (only through tenantDirectoryFor)',
    call: /\bnew (MemoryTenantDirectory|RedisTenantDirectory)\(/,
    allowed: ['state/tenant-directories.ts'],
  },
  {
    what: 'the directory of installs',
    call: /(?<!function )\btenantDirectoryFor\(/,
    allowed: ['composition/oauth'],
  },
];

/**
 * Module-level caches allowed outside src/composition, and why they cannot carry one tenant's data to
 * another: each holds a pure function of its key, and its keys are bounded.
 */
const SHARED_BY_DESIGN: Record<string, string> = {
  // An Intl formatter per IANA time zone: the constructor throws for an unknown zone, so at most ~600.
  'insights/ranges/zone-instants.ts:partFormatters': 'formatters of a time zone, no tenant data',
  'insights/ranges/dates.ts:dayFormatters': 'formatters of a time zone, no tenant data',
  // ln(n!) for n < 256, filled once as the module loads and only read afterwards.
  'insights/alerts/statistics.ts:LOG_FACTORIALS': 'a constant table built at load',
};

/** Module-level state that a second tenant's runtime in this process would share with the first. */
function moduleLevelState(path: string, code: string): string[] {
  const found: string[] = [];
  for (const match of code.matchAll(/^(?:export )?(let|var) ([A-Za-z_$][\w$]*)/gm)) {
    found.push(`${path}:${match[2]} (top-level ${match[1]})`);
  }
  const declared = /^(?:export )?const ([A-Za-z_$][\w$]*)(?:: [^=\n]+)? = (new ([\w$.]+)|\[|\{)/gm;
  for (const match of code.matchAll(declared)) {
    const [, name, , constructed] = match;
    if (constructed === 'RegExp') continue;
    const container = constructed === undefined || /^(Map|Set|WeakMap|WeakSet|Array)$/.test(constructed);
    // A constant table is fine; a container the module writes to is state.
    const writes = new RegExp(
      `\\b${name}(\\.(set|add|delete|clear|push|pop|shift|unshift|splice)\\(|(\\[[^\\]]*\\]|\\.[\\w$]+)\\s*=[^=])`,
    );
    if (!container || writes.test(code)) found.push(`${path}:${name}`);
  }
  return found.filter((entry) => !(entry.split(' ')[0]! in SHARED_BY_DESIGN));
}

const USE_CASES = ['jobs', 'insights', 'delivery'];

describe('tenants sealed off by construction', () => {
  it.each(MAKERS)('only $allowed make $what', ({ call, allowed }) => {
    const offenders = files.filter((f) => call.test(f.code) && !under(f.path, allowed)).map((f) => f.path);
    expect(offenders).toEqual([]);
  });

  it('no module outside src/composition keeps module-level mutable state (caches, counters, singletons)', () => {
    const state = files
      .filter((f) => !under(f.path, ['composition']))
      .flatMap((f) => moduleLevelState(f.path, f.code));
    expect(state).toEqual([]);
  });

  it('the allowed shared caches are still there (an exception nobody needs is removed)', () => {
    for (const entry of Object.keys(SHARED_BY_DESIGN)) {
      const [path, name] = entry.split(':');
      expect(files.find((f) => f.path === path)?.code).toMatch(new RegExp(`^const ${name}\\b`, 'm'));
    }
  });

  it.each(USE_CASES)(
    'src/%s never sees a tenant: no import of src/tenants or the OAuth root, no tenant id',
    (m) => {
      const offenders = files
        .filter((f) => under(f.path, [m]))
        .filter(
          (f) =>
            /from\s+['"][^'"]*\/(tenants|composition)\//.test(f.code) ||
            /\btenant|\benterprise_?id\b/i.test(f.code),
        )
        .map((f) => f.path);
      expect(offenders).toEqual([]);
    },
  );

  it('detects module-level state (the rule is not vacuous)', () => {
    const code = [
      'let calls = 0;',
      'const seen = new Map<string, string>();',
      'export const KINDS = new Set([1, 2]);',
      'const client = new WebClient(token);',
      'const recent: string[] = [];',
      'function f(id: string) { seen.set(id, id); recent.push(id); }',
    ].join('\n');
    expect(moduleLevelState('jobs/x.ts', code)).toEqual([
      'jobs/x.ts:calls (top-level let)',
      'jobs/x.ts:seen',
      'jobs/x.ts:client',
      'jobs/x.ts:recent',
    ]);
  });
});
