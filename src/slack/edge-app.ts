import { AsyncLocalStorage } from 'node:async_hooks';
import type { AuthorizeResult, AuthorizeSourceData, Receiver, ReceiverEvent } from '@slack/bolt';
import type { Config } from '../common/config.js';
import { AppError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import { boltApp, type InFlight, trackRequests } from './bolt-core.js';
import { registerListeners, type SlackDeps } from './listeners/index.js';
import type { WebClients } from './web-clients.js';

/** What the process's one Bolt app needs of the tenant a request is for (its scope's Slack side). */
export interface EdgeTenant {
  /** Bolt's authorization of one of its requests (throws once it is uninstalled: no listener runs). */
  authorize(source: AuthorizeSourceData<boolean>): AuthorizeResult;
  /** An org-wide install: Bolt's per-request clients keep the request's workspace (one per workspace). */
  orgWide(): boolean;
  /** Its listeners' deps (its jobs, stores, gateway with its pacing, settings…). */
  deps(): SlackDeps;
  /** Its listeners in flight and their after-ack work (drain, eviction). */
  inFlight: InFlight;
  logger: Logger;
}

/** OAuth mode's one Bolt app: the shared front door hands it each verified request with its tenant. */
export interface EdgeApp {
  /** Processes one verified request of `tenant` (the front door resolved it). */
  receive(event: ReceiverEvent, tenant: EdgeTenant): Promise<void>;
}

/** Requests reach the app through `receive`, never through a port of its own. */
const dispatchedReceiver: Receiver = {
  init: () => undefined,
  start: async () => undefined,
  stop: async () => undefined,
};

/**
 * One Bolt app per process (issue 43), built once with the listeners registered once. A request is
 * processed with its tenant held for its length (an AsyncLocalStorage of this app, not of the module): Bolt's
 * `authorize` and its per-request clients, which see no context, read it there, and so does every listener,
 * through `registerListeners`' deps of the request. Nothing of a tenant is kept here between requests.
 */
export function createEdgeApp(config: Config, logger: Logger, clients: WebClients): EdgeApp {
  const requests = new AsyncLocalStorage<EdgeTenant>();
  const tenant = (): EdgeTenant => {
    const now = requests.getStore();
    if (!now) throw new AppError('edge_without_tenant', 'a Slack request reached the app without its tenant');
    return now;
  };
  const app = boltApp({
    config,
    logger,
    receiver: dispatchedReceiver,
    authorize: async (source) => tenant().authorize(source),
    pool: clients.boltPool(() => requests.getStore()?.orgWide() === true),
    errorLogger: () => requests.getStore()?.logger ?? logger,
  });
  trackRequests(app, () => tenant().inFlight);
  registerListeners(app, () => tenant().deps());
  return { receive: (event, owner) => requests.run(owner, () => app.processEvent(event)) };
}
