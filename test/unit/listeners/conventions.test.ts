import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/*
 * How the Slack edge is laid out: one file per listener exporting its callback and a `register…`, listeners
 * that reach capabilities only (never adapters), typed Block Kit builders, and files small enough to read.
 */

const SLACK = join(import.meta.dirname, '..', '..', '..', 'src', 'slack');
const LISTENERS = join(SLACK, 'listeners');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Listener files: one surface each. Helpers beside them (`inbound.ts`) export no `register…`. */
const LISTENER_FILES = ['commands', 'actions', 'events'].flatMap((kind) =>
  sourceFiles(join(LISTENERS, kind)).filter((path) =>
    /export function register/.test(readFileSync(path, 'utf8')),
  ),
);

describe('src/slack layout', () => {
  it('has a listener file per surface, each exporting its callback beside its register function', async () => {
    expect(LISTENER_FILES.map((path) => relative(LISTENERS, path)).sort()).toEqual([
      'actions/agent-stop-choice.ts',
      'actions/alert-look.ts',
      'actions/alert-menu.ts',
      'actions/assistant-confirm.ts',
      'actions/docs-health-post.ts',
      'actions/docs-views-csv.ts',
      'actions/docs-views-post.ts',
      'actions/docs-views-schedule.ts',
      'actions/github-connect-submission.ts',
      'actions/health-fix-submission.ts',
      'actions/health-fix.ts',
      'actions/home-alert-forms.ts',
      'actions/home-connect-project.ts',
      'actions/home-disconnect-project.ts',
      'actions/home-fix.ts',
      'actions/home-github-connect.ts',
      'actions/home-job-menu.ts',
      'actions/home-new-job.ts',
      'actions/home-report-post.ts',
      'actions/home-reports.ts',
      'actions/home-schedule-open.ts',
      'actions/home-schedule-submission.ts',
      'actions/home-settings-submission.ts',
      'actions/home-settings.ts',
      'actions/job-card-menu.ts',
      'actions/job-feedback.ts',
      'actions/job-modal-submission.ts',
      'actions/job-retry.ts',
      'actions/open-pull-request.ts',
      'actions/project-connect-submission.ts',
      'actions/review-reacted-message.ts',
      'actions/send-to-docs-agent.ts',
      'actions/weekly-stop.ts',
      'actions/weekly-undo.ts',
      'commands/docs-agent.ts',
      'commands/docs-health.ts',
      'commands/docs-views.ts',
      'events/app-home-opened.ts',
      'events/link-shared.ts',
      'events/message.ts',
      'events/reaction-added.ts',
      'events/token-revoked.ts',
    ]);
    for (const path of LISTENER_FILES) {
      const module = (await import(path)) as Record<string, unknown>;
      const functions = Object.entries(module).filter(([, value]) => typeof value === 'function');
      const registers = functions.filter(([name]) => name.startsWith('register'));
      expect(registers, path).toHaveLength(1);
      expect(functions.length, `${path} exports no callback`).toBeGreaterThan(1);
    }
    // The first import of Bolt and 25 listener modules in a worker: 2 s alone, over 20 s on a loaded 2-core box.
  }, 60_000);

  it('registers every listener file from listeners/index.ts', () => {
    const index = readFileSync(join(LISTENERS, 'index.ts'), 'utf8');
    for (const path of LISTENER_FILES) {
      const name = /export function (register\w+)/.exec(readFileSync(path, 'utf8'))![1]!;
      expect(index, `${name} is not registered`).toMatch(new RegExp(`\\b${name}\\(app`));
    }
  });

  it('keeps listeners off the adapters: they use capability use cases through deps.ts', () => {
    for (const path of sourceFiles(LISTENERS)) {
      const imports = [...readFileSync(path, 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1]!);
      const adapters = imports.filter((i) => /\/(state|platform|metrics|composition)\//.test(i));
      expect(adapters, relative(SLACK, path)).toEqual([]);
    }
  });

  it('types every Block Kit builder: no `any`, no casts through `unknown` or `never`', () => {
    let builders = 0;
    for (const path of sourceFiles(join(SLACK, 'messages'))) {
      const file = relative(SLACK, path);
      const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node): void => {
        if (node.kind === ts.SyntaxKind.AnyKeyword)
          expect.fail(`${file}: \`any\` at ${node.parent.getText()}`);
        if (ts.isAsExpression(node) && /^(unknown|never)$/.test(node.type.getText()))
          expect.fail(`${file}: cast through ${node.type.getText()}: ${node.getText()}`);
        if (ts.isArrayTypeNode(node) && node.elementType.kind === ts.SyntaxKind.UnknownKeyword)
          expect.fail(`${file}: unknown[] at ${node.parent.getText()}`);
        // An exported builder of blocks, a message or a modal says so in its return type.
        if (
          ts.isFunctionDeclaration(node) &&
          node.name &&
          /(Message|View|Modal|Actions|Quote)$/.test(node.name.text)
        ) {
          builders += 1;
          expect(node.type?.getText(), `${file}: ${node.name.text}`).toMatch(
            /^(SlackMessage|ModalView|HomeView|KnownBlock|RichTextBlock|string)$/,
          );
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    expect(builders).toBeGreaterThanOrEqual(15);
  });
});
