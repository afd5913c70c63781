import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Logger as BoltLogger, type HTTPReceiverOptions, webApi } from '@slack/bolt';
import slackOAuth, { type Installation, type InstallURLOptions, type StateStore } from '@slack/oauth';
import type { Logger } from '../../common/logger.js';
import type { TenantDirectory } from '../../tenants/ports.js';
import type { TenantInstallation } from '../../tenants/tenant.js';
import { withTrailingSlash } from '../bolt-core.js';
import { boltLogger } from '../bolt-logger.js';
import { slackUserOf } from '../user-names.js';
import type { PageLinks } from './html-page.js';
import { classifyInstallFailure } from './install-failures.js';
import { failurePage, failureStatus, INSTALL_PATH, installPage } from './install-pages.js';
import type { InstallRateLimit } from './install-rate.js';
import {
  type InstallerRoleLookup,
  TenantInstallationStore,
  toTenantInstallation,
} from './installation-store.js';
import { installedLink, PAGE_HEADERS } from './installed-link.js';
import { BOT_SCOPES } from './scopes.js';

/** Where Slack sends the browser back after "Allow" or "Cancel" (manifest.yml's oauth_config.redirect_urls). */
export const REDIRECT_PATH = '/slack/oauth_redirect';

/** How long an install link (its state and cookie) lasts: @slack/oauth's default, said on the failure page. */
const STATE_SECONDS = 600;

/** How long the code exchange (oauth.v2.access, then auth.test) may take while the browser waits. */
const EXCHANGE_TIMEOUT_MS = 10_000;

export interface InstallerInput {
  clientId: string;
  clientSecret: string;
  stateSecret: string;
  /** SLACK_API_URL (default https://slack.com/api/): oauth.v2.access and the authorize page's origin. */
  slackApiUrl?: string;
  /** The full redirect URL to name on the authorize URL; only needed when the Slack app lists several. */
  redirectUri?: string;
  directory: TenantDirectory;
  now(): number;
  logger: Logger;
  /** PRIVACY_URL and SUPPORT_URL, linked at the foot of every install page. */
  links?: PageLinks;
  /** A tenant was installed (or re-installed) and saved: build or rebuild its runtime. */
  onInstalled(installation: TenantInstallation): void;
  /**
   * INSTALLS_PER_MINUTE: asked before the code is exchanged (a refused install is sent a "busy" page), told
   * of each successful exchange and each failed callback; it also makes each link's state single-use.
   */
  rateLimit?: Pick<InstallRateLimit, 'admit' | 'succeeded' | 'failed' | 'firstUse'>;
}

export type InstallerReceiverOptions = Required<
  Pick<HTTPReceiverOptions, 'clientId' | 'clientSecret' | 'stateSecret' | 'scopes' | 'installerOptions'>
> & { installationStore: TenantInstallationStore; redirectUri?: string };

type ClientOptions = NonNullable<HTTPReceiverOptions['installerOptions']>['clientOptions'];

const DEFAULT_SLACK_API_URL = 'https://slack.com/api/';

/** Slack's authorize page on SLACK_API_URL's host: https://slack.com/api/ → https://slack.com/oauth/v2/authorize. */
export function authorizationUrlFor(slackApiUrl = DEFAULT_SLACK_API_URL): string {
  return new URL('/oauth/v2/authorize', new URL(slackApiUrl).origin).toString();
}

function setPageHeaders(res: ServerResponse): void {
  for (const [name, value] of Object.entries(PAGE_HEADERS)) res.setHeader(name, value);
}

function sendPage(res: ServerResponse, status: number, html: string): void {
  setPageHeaders(res);
  res.writeHead(status);
  res.end(html);
}

/**
 * Whether a re-installer is an admin or owner (users.info with the new installation's token): of the
 * workspace, or of the whole org for an org-wide install. Bounded so the browser is not kept waiting.
 */
function installerIsAdmin(slackApiUrl: string): InstallerRoleLookup {
  const client = new webApi.WebClient(undefined, {
    slackApiUrl: withTrailingSlash(slackApiUrl),
    timeout: EXCHANGE_TIMEOUT_MS / 2,
    retryConfig: { retries: 0 },
    logLevel: webApi.LogLevel.ERROR,
  });
  return async (installation, userId) => {
    const answer = await client.users.info({ token: installation.botToken, user: userId });
    if (!answer.user) return undefined;
    const user = slackUserOf(answer.user);
    if (installation.isEnterpriseInstall)
      return user.orgAdmin === true && user.enterpriseId === installation.enterpriseId;
    return user.admin && !user.restricted;
  };
}

/** The key of a state's own nonce among the install options it signs (dropped again once verified). */
const NONCE = 'docsAgentStateNonce';

/**
 * The state store on the injected clock (so an expired link is testable), signed with SLACK_STATE_SECRET;
 * a state whose signature holds is used once (a second callback with it is refused as expired). Each state
 * carries a nonce of its own inside the signature: @slack/oauth's holds only the time and one of a million
 * random numbers, so two links made in the same millisecond could be one state, and the second person's
 * install would be refused as already used.
 */
export function singleUseStateStore(
  stateSecret: string,
  now: () => number,
  uses: Pick<InstallRateLimit, 'firstUse'> | undefined,
): StateStore {
  const signed = new slackOAuth.ClearStateStore(stateSecret, STATE_SECONDS);
  return {
    generateStateParam: (options) => {
      const nonce = randomBytes(12).toString('base64url');
      return signed.generateStateParam({ ...options, [NONCE]: nonce } as InstallURLOptions, new Date(now()));
    },
    verifyStateParam: async (_now, state) => {
      const verified = await signed.verifyStateParam(new Date(now()), state);
      if (uses && !(await uses.firstUse(state, STATE_SECONDS * 1000)))
        throw new slackOAuth.InvalidStateError('The state was already used');
      const { [NONCE]: _nonce, ...options } = verified as InstallURLOptions & { [NONCE]?: string };
      return options;
    },
  };
}

/**
 * The WebClient's logger for oauth.v2.access: no debug lines, since the WebClient writes request bodies there
 * (client_secret and code included); warnings and errors go through our logger (and its secret scrubbing).
 */
function quietClientLogger(logger: Logger): BoltLogger {
  const bolt = boltLogger(logger);
  return { ...bolt, debug: () => undefined };
}

/**
 * Everything Bolt's HTTPReceiver needs for "Add to Slack": spread it into `new HTTPReceiver({ signingSecret,
 * ...slackInstaller(input) })`. GET /slack/install serves our install page; /slack/oauth_redirect checks the
 * state (signed, 10 minutes, bound to the browser by a cookie), exchanges the code, saves the installation
 * through the TenantDirectory and sends the browser on to the success page (installed-link.ts), or answers
 * with our failure page.
 */
export function slackInstaller(input: InstallerInput): InstallerReceiverOptions {
  const { logger, now } = input;
  const slackApiUrl = input.slackApiUrl ?? DEFAULT_SLACK_API_URL;
  const installationStore = new TenantInstallationStore({
    directory: input.directory,
    now,
    isAdmin: installerIsAdmin(slackApiUrl),
    logger,
  });
  const log = logger.child({ component: 'slack-install' });

  const success = (installation: Installation, _o: unknown, _req: IncomingMessage, res: ServerResponse) => {
    const saved = installationStore.saved(installation) ?? toTenantInstallation(installation, now());
    log.info(
      { tenant: saved.tenant, orgWide: saved.isEnterpriseInstall, installer: saved.installerUserId },
      'docs-agent was installed through "Add to Slack"',
    );
    // The installation is saved whatever happens here: the registry's next poll of the directory starts it too.
    const notStarted = (error: unknown) =>
      log.error({ tenant: saved.tenant, err: String(error) }, 'starting the new installation failed');
    try {
      const started: unknown = input.onInstalled(saved);
      if (started instanceof Promise) started.catch(notStarted);
    } catch (error) {
      notStarted(error);
    }
    // Redirect-after-success: a reload shows the success page again instead of re-running the callback.
    setPageHeaders(res);
    res.writeHead(303, { location: installedLink(saved, input.stateSecret) });
    res.end();
  };

  const failure = (
    error: { code?: string; message?: string },
    _o: unknown,
    req: IncomingMessage,
    res: ServerResponse,
  ) => {
    // Counted for its address only: a failed callback never spends the install budget.
    void input.rateLimit?.failed(req);
    const reason = classifyInstallFailure(error, req.url);
    const level = reason.kind === 'denied' ? 'info' : reason.kind === 'unknown' ? 'error' : 'warn';
    log[level](
      {
        reason: reason.kind,
        code: error.code,
        ...('slackError' in reason ? { slackError: reason.slackError } : {}),
      },
      'an installation through "Add to Slack" did not complete',
    );
    sendPage(res, failureStatus(reason), failurePage(reason, INSTALL_PATH, input.links));
  };

  return {
    clientId: input.clientId,
    clientSecret: input.clientSecret,
    stateSecret: input.stateSecret,
    scopes: [...BOT_SCOPES],
    installationStore,
    ...(input.redirectUri ? { redirectUri: input.redirectUri } : {}),
    installerOptions: {
      installPath: INSTALL_PATH,
      redirectUriPath: REDIRECT_PATH,
      directInstall: false,
      stateVerification: true,
      stateStore: singleUseStateStore(input.stateSecret, now, input.rateLimit),
      stateCookieExpirationSeconds: STATE_SECONDS,
      authorizationUrl: authorizationUrlFor(slackApiUrl),
      renderHtmlForInstallPath: (url) => installPage(url, input.links),
      // The install page's headers: @slack/oauth sets only its content type.
      installPathOptions: {
        beforeRedirection: async (_req, res) => {
          setPageHeaders(res);
          return true;
        },
      },
      callbackOptions: {
        success,
        failure,
        // After the state is checked, before the code is exchanged and anything is written.
        beforeInstallation: async (_o, req, res) => {
          const admission = (await input.rateLimit?.admit(req)) ?? { admitted: true };
          if (admission.admitted) return true;
          log.warn(
            { retryAfterS: admission.retryAfterS },
            'an installation was asked to wait (INSTALLS_PER_MINUTE)',
          );
          res.setHeader('retry-after', String(admission.retryAfterS));
          const busy = {
            kind: 'busy' as const,
            retryAfterS: admission.retryAfterS,
            retryAt: admission.retryAt,
          };
          sendPage(res, failureStatus(busy), failurePage(busy, INSTALL_PATH, input.links));
          return false;
        },
        // oauth.v2.access said ok (and auth.test): only this counts against INSTALLS_PER_MINUTE.
        afterInstallation: async (_installation, _o, req) => {
          await input.rateLimit?.succeeded(req);
          return true;
        },
      },
      // No retries: a code works once, so a retried exchange after a lost answer could only fail; the person
      // at the browser gets "Slack could not be reached" and tries again instead of waiting for minutes.
      // The logger too (@slack/oauth's type leaves it out, but its spread lets ours replace the receiver's).
      clientOptions: {
        slackApiUrl,
        logger: quietClientLogger(logger),
        timeout: EXCHANGE_TIMEOUT_MS,
        retryConfig: { retries: 0 },
      } as ClientOptions,
    },
  };
}
