import { App, type Authorize, type Receiver, type webApi } from '@slack/bolt';
import type { Config } from '../common/config.js';
import { describeError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import { boltLevel, boltLogger } from './bolt-logger.js';
import { registerListeners, type SlackDeps } from './listeners/index.js';
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

/** The Bolt app with the bot's listeners, its gateway, and the tracking of work in flight (both modes). */
export function boltCore(input: {
  config: Config;
  logger: Logger;
  receiver: Receiver;
  authorize: Authorize<boolean>;
  client: webApi.WebClient;
  options: SlackAppOptions;
  /** OAuth mode: where Bolt's per-request clients come from (the process's cache by token), not a pool per app. */
  pool?: { getOrCreate(token: string, options: webApi.WebClientOptions): webApi.WebClient };
}) {
  const { config, logger, receiver, authorize, client, options, pool } = input;
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
    logger.error({ error: describeError(error) }, 'unhandled error in a Slack listener');
  });
  // Every request's listeners, and the work they hand to `afterAck`, are tracked so shutdown can wait for
  // work already taken on.
  const inFlight = new Set<Promise<unknown>>();
  const track = (work: Promise<unknown>) => {
    inFlight.add(work);
    const done = () => inFlight.delete(work);
    work.then(done, done);
  };
  app.use(async ({ next }) => {
    const work = next();
    track(work);
    await work;
  });
  const afterAck = (work: () => Promise<void>) =>
    track(
      Promise.resolve()
        .then(work)
        .catch((error: unknown) => {
          logger.error({ error: describeError(error) }, 'unhandled error in work after an acknowledgement');
        }),
    );
  const gateway = new SlackGateway(client, {
    logger,
    channelPostIntervalMs: config.slack.channelPostIntervalMs,
    tierRatePercent: config.slack.tierRatePercent,
    appTier: config.slack.appTier,
    // Half the outbox lease at most: a look-up waiting for its read must not outlive the lease it runs under.
    lookupWaitMs: config.slack.timeoutMs,
    ...options,
  });
  return {
    app,
    gateway,
    register: (deps: Omit<SlackDeps, 'afterAck'>) =>
      registerListeners(app, {
        threads: new BudgetedThreadContext(gateway, logger, Date.now, config.slack.appTier),
        ...deps,
        afterAck,
      }),
    /** Waits until no listener is running, at most `timeoutMs`; resolves how many were still running. */
    async drain(timeoutMs: number): Promise<number> {
      if (inFlight.size > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          Promise.allSettled([...inFlight]),
          new Promise((resolve) => {
            timer = setTimeout(resolve, timeoutMs);
          }),
        ]);
        clearTimeout(timer);
      }
      return inFlight.size;
    },
  };
}
