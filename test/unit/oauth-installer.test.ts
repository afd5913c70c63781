import type { IncomingMessage, ServerResponse } from 'node:http';
import { HTTPReceiver } from '@slack/bolt';
import type { Installation } from '@slack/oauth';
import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import type { RouteAnswer } from '../../src/slack/http-edge.js';
import { installedRoutes } from '../../src/slack/oauth/installed-link.js';
import { slackInstaller } from '../../src/slack/oauth/installer.js';
import { BOT_SCOPES } from '../../src/slack/oauth/scopes.js';
import type { TenantDirectory } from '../../src/tenants/ports.js';
import type { TenantInstallation } from '../../src/tenants/tenant.js';

function setup(onInstalled: (installation: TenantInstallation) => void = () => undefined) {
  const lines: string[] = [];
  const logger = createLogger({ level: 'debug', secrets: [], destination: { write: (l) => lines.push(l) } });
  const directory = {} as TenantDirectory;
  const options = slackInstaller({
    clientId: '1.2',
    clientSecret: 'client-secret',
    stateSecret: 'state-secret',
    slackApiUrl: 'https://slack.example/api/',
    directory,
    now: () => 5,
    logger,
    onInstalled,
  });
  return { options, lines };
}

/** A ServerResponse that keeps what was written. */
function response() {
  const sent = { status: 0, headers: {} as Record<string, string>, body: '' };
  const res = {
    setHeader(name: string, value: string) {
      sent.headers[name] = value;
    },
    writeHead(status: number, headers: Record<string, string> = {}) {
      sent.status = status;
      Object.assign(sent.headers, headers);
    },
    end(body = '') {
      sent.body = body;
    },
  } as unknown as ServerResponse;
  return { res, sent };
}

const installation: Installation = {
  team: { id: 'T0ACME', name: 'Acme' },
  enterprise: undefined,
  user: { token: undefined, scopes: undefined, id: 'U0ADMIN' },
  bot: { token: 'xoxb-secret-token', scopes: ['commands'], id: 'B0', userId: 'U0BOT' },
  appId: 'A0APP',
  isEnterpriseInstall: false,
};

describe('the installer options for HTTPReceiver', () => {
  it("carry the issue's settings, and HTTPReceiver takes them", () => {
    const { options } = setup();
    expect(options.scopes).toEqual(BOT_SCOPES);
    expect(options.installerOptions).toMatchObject({
      installPath: '/slack/install',
      redirectUriPath: '/slack/oauth_redirect',
      directInstall: false,
      stateVerification: true,
      authorizationUrl: 'https://slack.example/oauth/v2/authorize',
      clientOptions: { slackApiUrl: 'https://slack.example/api/' },
    });
    const receiver = new HTTPReceiver({ signingSecret: 's', ...options });
    expect(receiver.installer).toBeDefined();
  });

  it('success: 303 to the signed success page, even when starting the tenant fails (logged, no unhandled rejection)', async () => {
    const { options, lines } = setup(() => Promise.reject(new Error('registry down')) as never);
    const { res, sent } = response();
    options.installerOptions.callbackOptions?.success?.(
      installation,
      { scopes: [] },
      {} as IncomingMessage,
      res,
    );
    // Redirect-after-success: a reload of what the browser shows never re-runs the one-time callback.
    expect(sent.status).toBe(303);
    expect(sent.headers['cache-control']).toBe('no-store');
    const location = new URL(sent.headers.location ?? '', 'https://bot.example');
    expect(location.pathname).toBe('/slack/installed');
    const page = installedRoutes('state-secret')[0]!.handle(location) as RouteAnswer;
    expect(page.status).toBe(200);
    expect(page.headers?.['content-security-policy']).toContain("default-src 'none'");
    expect(String(page.body)).toContain('docs-agent is installed in Acme');
    // Signed with the state secret: another secret, or an altered name, reads as nothing of ours.
    expect((installedRoutes('other-secret')[0]!.handle(location) as RouteAnswer).status).toBe(404);
    await vi.waitFor(() => expect(lines.join('\n')).toContain('starting the new installation failed'));
    expect(lines.join('\n')).not.toContain('xoxb-secret-token');
  });

  it('failure: the status and page of what went wrong', () => {
    const { options } = setup();
    const failure = options.installerOptions.callbackOptions?.failure;
    const cases: Array<[string, string, number, string]> = [
      [
        '/slack/oauth_redirect?error=access_denied&state=s',
        'slack_oauth_installer_authorization_error',
        403,
        'cancelled',
      ],
      ['/slack/oauth_redirect?code=c&state=s', 'slack_oauth_invalid_state', 400, 'expired'],
      ['/slack/oauth_redirect?code=c&state=s', 'slack_oauth_unknown_error', 500, 'did not finish'],
    ];
    for (const [url, code, status, words] of cases) {
      const { res, sent } = response();
      const error = Object.assign(new Error('x'), { code });
      failure?.(error, { scopes: [] }, { url } as IncomingMessage, res);
      expect([sent.status, sent.body]).toEqual([status, expect.stringContaining(words)]);
    }
  });
});
