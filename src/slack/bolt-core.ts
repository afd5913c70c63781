import { App, type Authorize, type Receiver, webApi } from '@slack/bolt';
import type { Config } from '../common/config.js';
import { describeError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import { boltLevel, boltLogger } from './bolt-logger.js';
import { registerListeners, type SlackDeps } from './listeners/index.js';
import { type GatewayOptions, SlackGateway } from './slack-gateway.js';
import { BudgetedThreadContext } from './thread-context.js';
import { TOKEN_REJECTED } from './token-rejections.js';

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
 * A client whose token is read on every call (OAuth mode: token rotation replaces it while the runtime
 * keeps running); a token passed with a call still wins. A call Slack refuses for the token it read is made
 * once more when `renew` finds a newer one (rotated on another replica a moment ago): Slack acted on
 * nothing it refused, so the person asking never notices the rotation.
 */
export class RotatingTokenClient extends webApi.WebClient {
  constructor(
    private readonly tokenOf: () => string,
    options: webApi.WebClientOptions,
    private readonly renew?: (refused: string) => Promise<string | undefined>,
  ) {
    super(undefined, options);
  }

  /**
   * The token `renew` found in place of one Slack refused, used instead of it until `tokenOf` stops returning
   * the refused one (the directory read that makes it current may land a moment later): every call in
   * between would otherwise be refused and made twice.
   */
  private replaced: { refused: string; by: string } | undefined;

  override async apiCall(method: string, options: Record<string, unknown> = {}) {
    if (options.token) return super.apiCall(method, options);
    const token = this.currentToken();
    try {
      return await super.apiCall(method, { ...options, token });
    } catch (error) {
      const code = (error as { data?: { error?: unknown } }).data?.error;
      if (!this.renew || typeof code !== 'string' || !TOKEN_REJECTED.has(code)) throw error;
      const renewed = await this.renew(token).catch(() => undefined);
      if (!renewed || renewed === token) throw error;
      this.replaced = { refused: token, by: renewed };
      return super.apiCall(method, { ...options, token: renewed });
    }
  }

  /**
   * The token to use for `installed` (the installation's as this process last read it): the newer one
   * `renew` found, while `installed` is the one Slack refused. Bolt's own per-request client takes it too.
   */
  tokenFor(installed: string): string {
    if (this.replaced?.refused === installed) return this.replaced.by;
    this.replaced = undefined;
    return installed;
  }

  private currentToken(): string {
    return this.tokenFor(this.tokenOf());
  }
}

/** The Bolt app with the bot's listeners, its gateway, and the tracking of work in flight (both modes). */
export function boltCore(input: {
  config: Config;
  logger: Logger;
  receiver: Receiver;
  authorize: Authorize<boolean>;
  client: webApi.WebClient;
  options: SlackAppOptions;
}) {
  const { config, logger, receiver, authorize, client, options } = input;
  const app = new App({
    authorize,
    // Bolt's conversation store runs on every request; the bot keeps its own state and never reads it.
    convoStore: false,
    receiver,
    logger: boltLogger(logger),
    logLevel: boltLevel(config.logLevel),
    clientOptions: webClientOptions(config, logger),
  });
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
      registerListeners(app, { threads: new BudgetedThreadContext(gateway, logger), ...deps, afterAck }),
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
