import { cleanUntrusted, collapseWhitespace } from '../../common/untrusted-text.js';
import { escapeHtml, htmlPage, isSlackId, type PageLinks } from './html-page.js';
import { BOT_SCOPE_REASONS } from './scopes.js';

/**
 * The three pages of "Add to Slack" (GET /slack/install and the OAuth callback): the install page, the
 * success page and the failure page. Plain HTML, no script; every interpolation escaped.
 */

export const INSTALL_PATH = '/slack/install';

/** Slack's mark, as in Slack's own "Add to Slack" button (api.slack.com's button generator): inline, no request. */
const SLACK_MARK = `<svg aria-hidden="true" focusable="false" viewBox="0 0 122.8 122.8"><path d="M25.8 77.6c0 7.1-5.8 12.9-12.9 12.9S0 84.7 0 77.6s5.8-12.9 12.9-12.9h12.9v12.9zm6.5 0c0-7.1 5.8-12.9 12.9-12.9s12.9 5.8 12.9 12.9v32.3c0 7.1-5.8 12.9-12.9 12.9s-12.9-5.8-12.9-12.9V77.6z" fill="#e01e5a"/><path d="M45.2 25.8c-7.1 0-12.9-5.8-12.9-12.9S38.1 0 45.2 0s12.9 5.8 12.9 12.9v12.9H45.2zm0 6.5c7.1 0 12.9 5.8 12.9 12.9s-5.8 12.9-12.9 12.9H12.9C5.8 58.1 0 52.3 0 45.2s5.8-12.9 12.9-12.9h32.3z" fill="#36c5f0"/><path d="M97 45.2c0-7.1 5.8-12.9 12.9-12.9s12.9 5.8 12.9 12.9-5.8 12.9-12.9 12.9H97V45.2zm-6.5 0c0 7.1-5.8 12.9-12.9 12.9s-12.9-5.8-12.9-12.9V12.9C64.7 5.8 70.5 0 77.6 0s12.9 5.8 12.9 12.9v32.3z" fill="#2eb67d"/><path d="M77.6 97c7.1 0 12.9 5.8 12.9 12.9s-5.8 12.9-12.9 12.9-12.9-5.8-12.9-12.9V97h12.9zm0-6.5c-7.1 0-12.9-5.8-12.9-12.9s5.8-12.9 12.9-12.9h32.3c7.1 0 12.9 5.8 12.9 12.9s-5.8 12.9-12.9 12.9H77.6z" fill="#ecb22e"/></svg>`;

/** The install page: what docs-agent does, every scope and why, and one "Add to Slack" link to Slack. */
export function installPage(authorizeUrl: string, links?: PageLinks): string {
  const scopes = BOT_SCOPE_REASONS.map(
    ({ scope, reason }) => `<li><code>${escapeHtml(scope)}</code>: ${escapeHtml(reason)}</li>`,
  ).join('\n');
  return htmlPage({
    links,
    title: 'Add docs-agent to Slack',
    body: `<h1>Add docs-agent to Slack</h1>
<p>docs-agent brings your documentation platform into Slack.</p>
<ul>
<li>Start a docs agent job with <code>/docs-agent</code>, an @mention, a DM or a reaction: the agent edits
the docs and opens a pull request, and the job's thread follows it to the pull-request link.</li>
<li>Read page-view and docs-health reports with <code>/docs-views</code> and <code>/docs-health</code>,
and have a channel get them every week.</li>
</ul>
<p class="actions"><a class="slack-button" href="${escapeHtml(authorizeUrl)}">${SLACK_MARK}Add to Slack</a></p>
<p class="muted">On Slack's page you pick the workspace (or, as an Enterprise Grid org admin, the whole
org) and approve. You can remove the app at any time from your workspace's app settings.</p>
<p class="muted">Already installed, and docs-agent says it lost its access to your workspace or is paused?
Click <strong>Add to Slack</strong> again: it carries on where it was, with its jobs, schedules and
connected projects.</p>
<h2>What docs-agent asks Slack for, and why</h2>
<ul class="card">
${scopes}
</ul>`,
  });
}

/** Where the app was just installed, as the success page names it. */
export interface InstalledIn {
  /** The workspace's name, or the org's for an org-wide install (from Slack; cleaned and escaped here). */
  name: string;
  isEnterpriseInstall: boolean;
  teamId: string | undefined;
  enterpriseId: string | undefined;
  appId: string | undefined;
}

/** Longest workspace or org name shown: Slack caps them far lower, so anything longer is not Slack's. */
const MAX_NAME = 120;

function displayName(name: string, fallback: string): string {
  const clean = collapseWhitespace(cleanUntrusted(name, MAX_NAME).text);
  return clean === '' ? fallback : clean;
}

const CONNECT_STEP = `<li>An admin (the person who installed it, a workspace admin or owner) runs
<code>/docs-agent connect</code> in Slack to connect a docs project: its project ID and an admin API key
(<code>svc_…</code>), for the whole workspace or one channel.</li>
<li>Then anyone can start with <code>/docs-agent help</code>.</li>`;

/** The success page: names the workspace (or org) and says what to do next. */
export function successPage(installed: InstalledIn, links?: PageLinks): string {
  if (installed.isEnterpriseInstall) return orgSuccessPage(installed, links);
  const name = escapeHtml(displayName(installed.name, 'your workspace'));
  const { teamId, appId } = installed;
  const home =
    isSlackId(teamId) && isSlackId(appId)
      ? `<li><a href="${escapeHtml(`slack://app?team=${teamId}&id=${appId}&tab=home`)}">Open docs-agent's Home
in Slack</a> (in a browser: <a href="${escapeHtml(`https://app.slack.com/client/${teamId}`)}">open ${name} on
the web</a>, then docs-agent under Apps).</li>`
      : `<li>Open docs-agent's Home in Slack: find docs-agent under <strong>Apps</strong> in the sidebar.</li>`;
  return htmlPage({
    links,
    title: `docs-agent is installed in ${displayName(installed.name, 'your workspace')}`,
    body: `<h1>docs-agent is installed in ${name}</h1>
<p>The app was added to <strong>${name}</strong>, and docs-agent sent you a direct message there with
the first step.</p>
${openSlack(teamId)}
<h2>What to do next</h2>
<ol>
${home}
${CONNECT_STEP}
</ol>`,
  });
}

/** The primary action: open the Slack app on that workspace, with the browser as the fallback. */
function openSlack(teamId: string | undefined): string {
  const team = isSlackId(teamId) ? teamId : undefined;
  const app = team ? `slack://open?team=${team}` : 'slack://open';
  const web = team ? `https://app.slack.com/client/${team}` : 'https://app.slack.com/client';
  return `<p class="actions"><a class="button" href="${escapeHtml(app)}">Open Slack</a>
<a class="secondary" href="${escapeHtml(web)}">Open in the browser instead</a></p>`;
}

function orgSuccessPage(installed: InstalledIn, links?: PageLinks): string {
  const name = escapeHtml(displayName(installed.name, 'your organization'));
  const { enterpriseId, appId } = installed;
  const addToWorkspaces =
    isSlackId(enterpriseId) && isSlackId(appId)
      ? `<a href="${escapeHtml(`https://app.slack.com/manage/${enterpriseId}/integrations/profile/${appId}/workspaces/add`)}">Add
docs-agent to the workspaces</a> that should use it`
      : 'Add docs-agent to the workspaces that should use it (Manage apps in the org dashboard)';
  return htmlPage({
    links,
    title: `docs-agent is installed for the ${displayName(installed.name, 'your organization')} organization`,
    body: `<h1>docs-agent is installed for the ${name} organization</h1>
<p>The app was installed org-wide in <strong>${name}</strong>: it serves every workspace of the org it is
added to.</p>
<h2>What to do next</h2>
<ol>
<li>${addToWorkspaces}: an org-wide install starts in no workspace.</li>
<li>In each workspace, open docs-agent's Home: it is under <strong>Apps</strong> in the sidebar.</li>
${CONNECT_STEP}
</ol>`,
  });
}

/** Why an installation did not complete, in the terms the failure page explains it. */
export type InstallFailure =
  /** The user pressed Cancel on Slack's page (`error=access_denied`). */
  | { kind: 'denied' }
  /** The state is missing, forged, from another browser, or older than its 10 minutes. */
  | { kind: 'expired' }
  /** Slack's redirect carried no code (and no error). */
  | { kind: 'incomplete' }
  /** Slack answered the code exchange (or the redirect) with an error. */
  | { kind: 'slack-refused'; slackError: string }
  /** Slack could not be reached, or answered with a server error. */
  | { kind: 'slack-unreachable' }
  /** More installs than the deployment takes a minute (INSTALLS_PER_MINUTE): asked to come back. */
  | { kind: 'busy'; retryAfterS: number; retryAt: number }
  | { kind: 'unknown' };

/** The HTTP status of each failure: the browser's request at fault (4xx), Slack's answer (502), ours (500). */
export function failureStatus(failure: InstallFailure): number {
  switch (failure.kind) {
    case 'denied':
      return 403;
    case 'expired':
    case 'incomplete':
      return 400;
    case 'slack-refused':
    case 'slack-unreachable':
      return 502;
    case 'busy':
      return 429;
    case 'unknown':
      return 500;
  }
}

/** Slack's error codes are short snake_case words: anything else is shown as "an error". */
function slackCode(error: string): string | undefined {
  return /^[a-z0-9_.:-]{1,64}$/i.test(error) ? error : undefined;
}

const ASK_OPERATOR = 'If it happens again, tell whoever runs docs-agent for your team.';

function slackRefusedWords(slackError: string): { title: string; explain: string } {
  const code = slackCode(slackError);
  const said = code ? ` (Slack said <code>${escapeHtml(code)}</code>)` : '';
  switch (code) {
    case 'invalid_code':
    case 'code_already_used':
    case 'code_expired':
      return {
        title: 'Slack did not accept this installation',
        explain: `<p>Slack did not accept the approval${said}: it works only once and only for a few minutes,
so this happens when the page is reloaded or opened again from the browser history. Nothing was installed.</p>`,
      };
    case 'invalid_client_id':
    case 'bad_client_secret':
    case 'bad_redirect_uri':
    case 'invalid_team_for_non_distributed_app':
      return {
        title: 'docs-agent is not set up to be installed here',
        explain: `<p>Slack refused the installation${said} because of how this docs-agent server is set up, not
because of anything you did. Nothing was installed. Tell whoever runs docs-agent for your team: its Slack app
ID, client secret, redirect URL or distribution settings need checking.</p>`,
      };
    default:
      return {
        title: 'Slack stopped the installation',
        explain: `<p>Slack refused to finish the installation${said}. Nothing was installed. ${ASK_OPERATOR}</p>`,
      };
  }
}

/** When to come back, in UTC (the page cannot know the reader's zone): `14:05:00 UTC`. */
const retryTime = (at: number) => `${new Date(at).toISOString().slice(11, 19)} UTC`;
const retryIn = (seconds: number) =>
  seconds < 90 ? `${seconds} second${seconds === 1 ? '' : 's'}` : `${Math.ceil(seconds / 60)} minutes`;

function failureWords(failure: InstallFailure): { title: string; explain: string } {
  switch (failure.kind) {
    case 'denied':
      return {
        title: 'Installation cancelled',
        explain: `<p>You pressed <strong>Cancel</strong> on Slack's page, so docs-agent was not added and nothing
changed in your workspace. You can start again whenever you like.</p>`,
      };
    case 'expired':
      return {
        title: 'This install link has expired',
        explain: `<p>The link back from Slack could not be matched to this browser: install links last 10 minutes and
work only in the browser that opened the install page. Nothing was installed by this link. Start again from
the install page, in this browser.</p>
<p class="muted">If this page said docs-agent was installed a moment ago, it is: opening that page again does not
install it twice.</p>`,
      };
    case 'incomplete':
      return {
        title: 'The link back from Slack was incomplete',
        explain: `<p>Slack's answer arrived without its approval code, so nothing was installed. Start again from the
install page.</p>`,
      };
    case 'slack-refused':
      return slackRefusedWords(failure.slackError);
    case 'slack-unreachable':
      return {
        title: 'Slack could not be reached',
        explain: `<p>docs-agent could not reach Slack to finish the installation. Nothing was installed. Wait a
minute and try again. ${ASK_OPERATOR}</p>`,
      };
    case 'busy':
      return {
        title: 'Too many installations right now',
        explain: `<p>I am taking many installations at the moment, so I asked this one to wait. Nothing was
installed. Try again after <strong>${retryTime(failure.retryAt)}</strong> (in ${retryIn(failure.retryAfterS)}),
from the install page.</p>`,
      };
    case 'unknown':
      return {
        title: 'The installation did not finish',
        explain: `<p>Something went wrong on docs-agent's side while finishing the installation, so it may not
be complete. Try again in a minute. ${ASK_OPERATOR}</p>`,
      };
  }
}

/** The failure page: what went wrong in plain words, and "Try again" (back to the install page). */
export function failurePage(failure: InstallFailure, installPath = INSTALL_PATH, links?: PageLinks): string {
  const { title, explain } = failureWords(failure);
  return htmlPage({
    links,
    title: `${title} · docs-agent`,
    body: `<h1>${escapeHtml(title)}</h1>
${explain}
<p class="actions"><a class="button" href="${escapeHtml(installPath)}">Try again</a></p>`,
  });
}
