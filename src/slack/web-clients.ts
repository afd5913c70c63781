import { webApi } from '@slack/bolt';
import { TOKEN_REJECTED } from './token-rejections.js';

/** What a token's calls do when Slack refuses that token: a newer one, if the directory has it. */
export interface TokenRenewal {
  renew(refused: string): Promise<string | undefined>;
  /** `by` replaced `refused` (the scope uses it until its installation has it too). */
  renewed(refused: string, by: string): void;
}

type Options = Record<string, unknown>;
/** The one client, and its namespaces of Web API methods (`chat`, `admin`, …). */
interface Shared {
  client: webApi.WebClient;
  namespaces: ReadonlySet<string>;
}
type Call = (method: string, options?: Options) => Promise<webApi.WebAPICallResult>;

/** Helpers of WebClient that reach Slack through `this` and carry their token in their first argument. */
const CARRIES_TOKEN = new Set<PropertyKey>(['filesUploadV2', 'chatStream']);

/**
 * The process's Slack Web API client: one WebClient, whatever the number of tokens (issue 43 §1). A WebClient
 * binds about 280 methods when built (~35 KB), so a client per token cost that per tenant; here each token's
 * client is a view of the one client that puts its token (and Bolt's workspace, for an org-wide install) into
 * every call. The views hold nothing but the token: built per use, never cached.
 */
export class WebClients {
  private client: Shared | undefined;
  private built = 0;

  /** The one WebClient, built the first time from `options` (the same for every token in a process). */
  private shared({ teamId: _perCall, ...options }: webApi.WebClientOptions): Shared {
    if (!this.client) {
      // No token of its own, and no queue across tenants: each workspace's calls are paced by its gateway.
      const client = new webApi.WebClient(undefined, {
        ...options,
        maxRequestConcurrency: Number.POSITIVE_INFINITY,
      });
      this.client = { client, namespaces: namespacesOf(client) };
      this.built += 1;
    }
    return this.client;
  }

  /** A client for `token`: every call made with it (and `options.teamId`, Bolt's workspace, if given). */
  for(token: string, options: webApi.WebClientOptions, renewal?: TokenRenewal): webApi.WebClient {
    return tokenView(this.shared(options), () => token, options.teamId, renewal);
  }

  /** A client whose token `tokenOf` reads at each call (a call whose token it cannot read rejects with why). */
  reading(tokenOf: () => string, options: webApi.WebClientOptions, renewal?: TokenRenewal): webApi.WebClient {
    return tokenView(this.shared(options), tokenOf, undefined, renewal);
  }

  /** WebClients built (one for the process's life; tests count them). */
  get size(): number {
    return this.built;
  }

  /**
   * Bolt's per-team pool, answered with views of the one client (Bolt's own would keep a client per token
   * forever). Bolt names the request's workspace (`teamId`): kept for an org-wide install's token (its calls
   * name the workspace of the org), dropped for a workspace's own token.
   */
  boltPool(orgWide: () => boolean): {
    getOrCreate(token: string, options: webApi.WebClientOptions): webApi.WebClient;
  } {
    return {
      getOrCreate: (token, { teamId, ...options }) =>
        this.for(token, orgWide() && teamId !== undefined ? { ...options, teamId } : options),
    };
  }
}

/**
 * `shared` seen as a client of one token: `apiCall` (and every method of its namespaces, `chat.postMessage`
 * being `apiCall('chat.postMessage', …)`) adds the token unless the call names its own; helpers that call
 * Slack through `this` run with the view as `this`. A call Slack refuses for the token it read is made once
 * more when `renewal` finds a newer one (rotated on another replica a moment ago).
 */
function tokenView(
  { client: shared, namespaces }: Shared,
  tokenOf: () => string,
  teamId: string | undefined,
  renewal: TokenRenewal | undefined,
): webApi.WebClient {
  const withToken = (options: Options, token: string): Options => ({
    ...(teamId !== undefined && options.team_id === undefined ? { team_id: teamId } : {}),
    ...options,
    token,
  });
  const apiCall: Call = async (method, options = {}) => {
    if (typeof options.token === 'string') return shared.apiCall(method, options);
    const token = tokenOf(); // throws (on hold, uninstalled): the call rejects with why
    try {
      return await shared.apiCall(method, withToken(options, token));
    } catch (error) {
      const code = (error as { data?: { error?: unknown } }).data?.error;
      if (!renewal || typeof code !== 'string' || !TOKEN_REJECTED.has(code)) throw error;
      const renewed = await renewal.renew(token).catch(() => undefined);
      if (!renewed || renewed === token) throw error;
      renewal.renewed(token, renewed);
      return shared.apiCall(method, withToken(options, renewed));
    }
  };
  const namespace = (real: object, path: string): object =>
    new Proxy(real, {
      get(target, key) {
        const value = Reflect.get(target, key) as unknown;
        if (typeof key !== 'string') return value;
        if (typeof value === 'function') return (options?: Options) => apiCall(`${path}.${key}`, options);
        return value !== null && typeof value === 'object' ? namespace(value, `${path}.${key}`) : value;
      },
    });
  const view: webApi.WebClient = new Proxy(shared, {
    get(target, key) {
      if (key === 'apiCall') return apiCall;
      if (key === 'token') return tryToken(tokenOf);
      if (key === 'teamId') return teamId;
      const value = Reflect.get(target, key) as unknown;
      if (typeof value === 'function') {
        if (!CARRIES_TOKEN.has(key)) return (...args: unknown[]) => value.apply(view, args);
        return (options: Options = {}) =>
          value.call(view, typeof options.token === 'string' ? options : { ...options, token: tokenOf() });
      }
      // Namespaces (chat, conversations, …) are objects of methods; the rest is the client's own.
      return typeof key === 'string' && namespaces.has(key) ? namespace(value as object, key) : value;
    },
  });
  return view;
}

/** What Methods binds each Web API method to when a WebClient is built. */
const BOUND_METHODS = new Set(['bound apiCall', 'bound filesUploadV2']);

/** The client's own properties that hold Web API methods (each bound to its `apiCall` when it was built). */
function namespacesOf(client: webApi.WebClient): ReadonlySet<string> {
  const holdsMethods = (value: unknown, depth: number): boolean =>
    typeof value === 'function'
      ? BOUND_METHODS.has(value.name)
      : depth < 6 &&
        value !== null &&
        typeof value === 'object' &&
        Object.getPrototypeOf(value) === Object.prototype &&
        Object.values(value).some((inner) => holdsMethods(inner, depth + 1));
  return new Set(
    Object.keys(client).filter((key) => {
      const value = (client as unknown as Record<string, unknown>)[key];
      return typeof value === 'object' && holdsMethods(value, 0);
    }),
  );
}

function tryToken(tokenOf: () => string): string | undefined {
  try {
    return tokenOf();
  } catch {
    return undefined;
  }
}

/** A scope's Slack client: each call reaches Slack with the token `tokenOf` reads then. */
export type ScopeClient = webApi.WebClient & {
  /** The token to use for `installed`: the renewed one while `installed` is the one Slack refused. */
  tokenFor(installed: string): string;
};

/**
 * A client whose token is read on every call (OAuth mode: token rotation replaces it while the scope keeps
 * running), built of no WebClient of its own. A call Slack refuses for the token it read is made once more
 * when `renew` finds a newer one (rotated on another replica a moment ago). When `tokenOf` throws (on hold,
 * uninstalled), calls reject with its error, except those that name their own token (`{ token }`), which go
 * out with it.
 */
export function scopeClient(
  tokenOf: () => string,
  clients: WebClients,
  options: webApi.WebClientOptions,
  renew?: (refused: string) => Promise<string | undefined>,
): ScopeClient {
  let replaced: { refused: string; by: string } | undefined;
  const tokenFor = (installed: string) => {
    if (replaced?.refused === installed) return replaced.by;
    replaced = undefined;
    return installed;
  };
  const renewal: TokenRenewal | undefined = renew && {
    renew,
    renewed: (refused, by) => {
      replaced = { refused, by };
    },
  };
  const client = clients.reading(() => tokenFor(tokenOf()), options, renewal);
  return new Proxy(client, {
    get: (target, key) => (key === 'tokenFor' ? tokenFor : Reflect.get(target, key)),
  }) as ScopeClient;
}
