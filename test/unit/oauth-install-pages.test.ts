import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../../src/slack/oauth/html-page.js';
import { classifyInstallFailure } from '../../src/slack/oauth/install-failures.js';
import {
  failurePage,
  failureStatus,
  type InstallFailure,
  installPage,
  successPage,
} from '../../src/slack/oauth/install-pages.js';
import { authorizationUrlFor } from '../../src/slack/oauth/installer.js';
import { BOT_SCOPES } from '../../src/slack/oauth/scopes.js';

const HOSTILE = '<script>alert(1)</script>" onmouseover="x\u202e\u200bEvil & Co';

const workspace = {
  name: 'Acme',
  isEnterpriseInstall: false,
  teamId: 'T0ACME',
  enterpriseId: undefined,
  appId: 'A0APP',
};

describe('the install pages', () => {
  it('escapes every character HTML gives a meaning', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
  });

  it('the install page: lang, title, viewport, every scope, one link to the authorize URL (escaped), no script', () => {
    const html = installPage('https://slack.com/oauth/v2/authorize?scope=a,b&state=x"y&client_id=1');
    expect(html).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(html).toContain('<title>Add docs-agent to Slack</title>');
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    for (const scope of BOT_SCOPES) expect(html).toContain(`<code>${scope}</code>`);
    expect(html).toContain(
      'href="https://slack.com/oauth/v2/authorize?scope=a,b&amp;state=x&quot;y&amp;client_id=1"',
    );
    expect(html.match(/>Add to Slack<\/a>/g)).toHaveLength(1);
    expect(html).not.toMatch(/<script|javascript:|\son\w+=/i);
  });

  it('the install page says how a workspace that lost access or is paused gets it back (issue 36)', () => {
    const html = installPage('https://slack.com/oauth/v2/authorize?scope=a');
    expect(html).toContain('lost its access to your workspace or is paused');
    expect(html).toContain('Click <strong>Add to Slack</strong> again');
  });

  it('a hostile workspace name is cleaned and escaped wherever it appears', () => {
    const html = successPage({ ...workspace, name: HOSTILE });
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('" onmouseover');
    expect(html).not.toMatch(/[\u202e\u200b]/);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;&quot; onmouseover=&quot;xEvil &amp; Co');
  });

  it('the success page links to the Home only with ids that are Slack ids', () => {
    expect(successPage(workspace)).toContain('href="slack://app?team=T0ACME&amp;id=A0APP&amp;tab=home"');
    const forged = successPage({ ...workspace, teamId: 'T1"><img', appId: undefined });
    expect(forged).not.toContain('slack://app');
    expect(forged).not.toContain('<img');
    expect(forged).toContain('<a class="button" href="slack://open">Open Slack</a>');
    expect(forged).toContain('under <strong>Apps</strong>');
    expect(successPage({ ...workspace, name: '  ' })).toContain('installed in your workspace');
  });

  it('the success page’s primary action opens Slack on that workspace, with the browser as the fallback', () => {
    const html = successPage(workspace);
    expect(html).toContain('<a class="button" href="slack://open?team=T0ACME">Open Slack</a>');
    expect(html).toContain('href="https://app.slack.com/client/T0ACME">Open in the browser instead</a>');
    // The one primary (filled) button on the page.
    expect(html.match(/class="button"/g)).toHaveLength(1);
  });

  it('an org-wide install names the org and links to adding it to workspaces', () => {
    const html = successPage({
      name: 'Globex',
      isEnterpriseInstall: true,
      teamId: undefined,
      enterpriseId: 'E0GLOBEX',
      appId: 'A0APP',
    });
    expect(html).toContain('<h1>docs-agent is installed for the Globex organization</h1>');
    expect(html).toContain('https://app.slack.com/manage/E0GLOBEX/integrations/profile/A0APP/workspaces/add');
  });

  it.each<[InstallFailure, number, string]>([
    [{ kind: 'denied' }, 403, 'You pressed <strong>Cancel</strong>'],
    [{ kind: 'expired' }, 400, 'install links last 10 minutes'],
    [{ kind: 'incomplete' }, 400, 'without its approval code'],
    [{ kind: 'slack-refused', slackError: 'invalid_code' }, 502, 'Slack said <code>invalid_code</code>'],
    [{ kind: 'slack-refused', slackError: 'bad_client_secret' }, 502, 'how this docs-agent server is set up'],
    [{ kind: 'slack-refused', slackError: 'team_access_not_granted' }, 502, 'Slack refused to finish'],
    [{ kind: 'slack-unreachable' }, 502, 'could not reach Slack'],
    [{ kind: 'unknown' }, 500, "on docs-agent's side"],
  ])('failure %j: status %i, says what happened, offers Try again', (failure, status, words) => {
    const html = failurePage(failure);
    expect(failureStatus(failure)).toBe(status);
    expect(html).toContain(words);
    expect(html).toContain('<a class="button" href="/slack/install">Try again</a>');
    expect(html).toContain('<html lang="en">');
  });

  it('a Slack error code that is not a plain code is not shown', () => {
    const html = failurePage({ kind: 'slack-refused', slackError: '<img src=x onerror=alert(1)>' });
    expect(html).not.toContain('<img');
    expect(html).not.toContain('Slack said');
  });
});

describe('what went wrong in the callback', () => {
  const url = (query: string) => `/slack/oauth_redirect?${query}`;
  it.each<[string, { code?: string; data?: { error?: unknown } }, string | undefined, InstallFailure]>([
    [
      'Cancel',
      { code: 'slack_oauth_installer_authorization_error' },
      url('error=access_denied&state=s'),
      { kind: 'denied' },
    ],
    [
      'another redirect error',
      { code: 'slack_oauth_missing_code' },
      url('error=invalid_scope'),
      { kind: 'slack-refused', slackError: 'invalid_scope' },
    ],
    [
      'a forged or stale state',
      { code: 'slack_oauth_invalid_state' },
      url('code=c&state=s'),
      { kind: 'expired' },
    ],
    ['no state', { code: 'slack_oauth_missing_state' }, url('code=c'), { kind: 'expired' }],
    ['no code', { code: 'slack_oauth_missing_code' }, url('state=s'), { kind: 'incomplete' }],
    [
      'Slack refused the code',
      { code: 'slack_webapi_platform_error', data: { error: 'invalid_code' } },
      url('code=c&state=s'),
      { kind: 'slack-refused', slackError: 'invalid_code' },
    ],
    [
      'Slack unreachable',
      { code: 'slack_webapi_request_error' },
      url('code=c&state=s'),
      { kind: 'slack-unreachable' },
    ],
    [
      'a store that failed',
      { code: 'slack_oauth_unknown_error' },
      url('code=c&state=s'),
      { kind: 'unknown' },
    ],
    ['no URL at all', {}, undefined, { kind: 'unknown' }],
  ])('%s', (_name, error, requestUrl, expected) => {
    expect(classifyInstallFailure(error, requestUrl)).toEqual(expected);
  });
});

describe("Slack's authorize URL", () => {
  it("is on SLACK_API_URL's origin", () => {
    expect(authorizationUrlFor()).toBe('https://slack.com/oauth/v2/authorize');
    expect(authorizationUrlFor('https://slack.com/api/')).toBe('https://slack.com/oauth/v2/authorize');
    expect(authorizationUrlFor('http://127.0.0.1:4321/api/')).toBe(
      'http://127.0.0.1:4321/oauth/v2/authorize',
    );
  });
});
