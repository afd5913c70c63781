import { App, type Authorize, type Receiver, type webApi } from '@slack/bolt';
import type { Config, SlackAppTier } from '../common/config.js';
import { describeError } from '../common/errors.js';
import { LazySet } from '../common/lazy-collections.js';
import type { Logger } from '../common/logger.js';
import { boltLevel, boltLogger } from './bolt-logger.js';
import type { SlackDeps } from './listeners/index.js';
import { type GatewayOptions, SlackGateway } from './slack-gateway.js';
import { BudgetedThreadContext } from './thread-context.js';

export type SlackAppOptions = Pick<GatewayOptions, 'metrics' | 'sharedSlots' | 'onTokenRejected'>;

/** The Web API options every client of the bot uses: a timeout, no automatic retries, SLACK_API_URL. */
export function webClientOptions(config: Config, logger: Logger) {
  return {
    ...(config.slack.apiUrl ? { slackApiUrl: withTrailingSlash(config.slack.apiUrl) } : {}),
    timeout: config.slack.timeoutMs,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    logger: boltLogger(logger),
    logLevel: boltLevel(config.logLevel),
  };
}

export function withTrailingSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}

/**
 * The Bolt app (both modes: one per process, whatever the number of tenants). Its listeners are registered
 * once by its owner; `errorLogger` names the logger a listener's unhandled error goes to (the request's).
 */
export function boltApp(input: {
  config: Config;
  logger: Logger;
  receiver: Receiver;
  authorize: Authorize<boolean>;
  /** OAuth mode: where Bolt's per-request clients come from (the process's cache by token), not a pool per team. */
  pool?: { getOrCreate(token: string, options: webApi.WebClientOptions): webApi.WebClient };
  errorLogger?: () => Logger;
}): App {
  const { config, logger, receiver, authorize, pool } = input;
  const app = new App({
    authorize,
    // Bolt's conversation store runs on every request; the bot keeps its own state and never reads it.
    convoStore: false,
    receiver,
    logger: boltLogger(logger),
    logLevel: boltLevel(config.logLevel),
    clientOptions: webClientOptions(config, logger),
  });
  // Bolt keeps a pool of clients per team, each growing by token for as long as the app lives; every team's
  // pool is the process's one cache instead (App.processEvent reads `clients[team]`).
  if (pool) Object.defineProperty(app, 'clients', { value: new Proxy({}, { get: () => pool }) });
  app.error(async (error) => {
    (input.errorLogger?.() ?? logger).error(
      { error: describeError(error) },
      'unhandled error in a Slack listener',
    );
  });
  return app;
}

/**
 * A scope's listeners in flight, and the work they hand to `afterAck`: tracked so shutdown can wait for work
 * already taken on, and so eviction sees the scope busy.
 */
export class InFlight {
  // Its table goes with the last work (issue 43 §2: a resident scope between requests keeps none).
  private readonly work = new LazySet<Promise<unknown>>();

  constructor(private readonly logger: Logger) {}

  track(work: Promise<unknown>): void {
    this.work.add(work);
    const done = () => this.work.delete(work);
    work.then(done, done);
  }

  readonly afterAck = (work: () => Promise<void>): void =>
    this.track(
      Promise.resolve()
        .then(work)
        .catch((error: unknown) => {
          this.logger.error(
            { error: describeError(error) },
            'unhandled error in work after an acknowledgement',
          );
        }),
    );

  /** Waits until no listener is running, at most `timeoutMs`; resolves how many were still running. */
  async drain(timeoutMs: number): Promise<number> {
    if (this.work.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...this.work]),
        new Promise((resolve) => {
          timer = setTimeout(resolve, timeoutMs);
        }),
      ]);
      clearTimeout(timer);
    }
    return this.work.size;
  }
}

/** A scope's gateway over its client (its pacing alone). */
export function slackGateway(
  config: Config,
  logger: Logger,
  client: webApi.WebClient,
  options: SlackAppOptions,
): SlackGateway {
  return new SlackGateway(client, {
    logger,
    channelPostIntervalMs: config.slack.channelPostIntervalMs,
    tierRatePercent: config.slack.tierRatePercent,
    appTier: config.slack.appTier,
    // Half the outbox lease at most: a look-up waiting for its read must not outlive the lease it runs under.
    lookupWaitMs: config.slack.timeoutMs,
    ...options,
  });
}

/** A scope's listener deps as registered: its thread reads within its history budget, its after-ack work tracked. */
export function listenerDeps(
  deps: Omit<SlackDeps, 'afterAck'>,
  gateway: SlackGateway,
  logger: Logger,
  inFlight: InFlight,
  appTier: SlackAppTier,
): SlackDeps {
  const threads = new BudgetedThreadContext(gateway, logger, Date.now, appTier);
  return { threads, ...deps, afterAck: inFlight.afterAck };
}

/** Every request's listeners are tracked in the `InFlight` of the scope it is for. */
export function trackRequests(app: App, inFlightOf: () => InFlight): void {
  app.use(async ({ next }) => {
    const inFlight = inFlightOf();
    const work = next();
    inFlight.track(work);
    await work;
  });
}
