import { webApi } from '@slack/bolt';
import { type CacheView, ProcessLru } from '../common/process-lru.js';
import { TOKEN_REJECTED } from './token-rejections.js';

/** WebClients the process keeps at most (least recently used first out): one per token (and workspace). */
export const WEB_CLIENTS_MAX = 500;

/** What a token's client does when Slack refuses that token: a newer one, if the directory has it. */
export interface TokenRenewal {
  renew(refused: string): Promise<string | undefined>;
  /** `by` replaced `refused` (the scope uses it until its installation has it too). */
  renewed(refused: string, by: string): void;
}

/** A token's client: a call Slack refuses for the token is made once more with a renewed one. */
class TokenClient extends webApi.WebClient {
  renewal: TokenRenewal | undefined;

  constructor(
    private readonly ownToken: string,
    options: webApi.WebClientOptions,
  ) {
    super(ownToken, options);
  }

  override async apiCall(method: string, options: Record<string, unknown> = {}) {
    try {
      return await super.apiCall(method, options);
    } catch (error) {
      const code = (error as { data?: { error?: unknown } }).data?.error;
      const renewal = this.renewal;
      if (options.token || !renewal || typeof code !== 'string' || !TOKEN_REJECTED.has(code)) throw error;
      const renewed = await renewal.renew(this.ownToken).catch(() => undefined);
      if (!renewed || renewed === this.ownToken) throw error;
      renewal.renewed(this.ownToken, renewed);
      return super.apiCall(method, { ...options, token: renewed });
    }
  }
}

/**
 * The process's WebClients, one per bot token (and, for an org-wide install, per workspace Bolt names),
 * in an LRU of WEB_CLIENTS_MAX: every scope's calls and Bolt's per-request clients come from here, so a
 * process holds at most that many whatever the number of tenants (issue 43). A client evicted is built
 * again on its next use.
 */
export class WebClients {
  private readonly lru: ProcessLru;
  private readonly clients: CacheView<TokenClient>;

  constructor(max = WEB_CLIENTS_MAX) {
    this.lru = new ProcessLru(max);
    this.clients = this.lru.view('web-clients');
  }

  /** `options` build the client the first time (the same for every token in a process); `teamId`: Bolt's. */
  for(token: string, options: webApi.WebClientOptions, renewal?: TokenRenewal): webApi.WebClient {
    const key = `${token}\u0000${options.teamId ?? ''}`;
    let client = this.clients.get(key);
    if (!client) {
      client = new TokenClient(token, options);
      this.clients.set(key, client);
    }
    if (renewal) client.renewal = renewal;
    return client;
  }

  get size(): number {
    return this.lru.size;
  }

  /**
   * Bolt's per-team pool, answered from this cache (Bolt's own would keep a client per token forever). Bolt
   * names the request's workspace (`teamId`): kept for an org-wide install's token (one client per workspace
   * of the org), dropped for a workspace's own token, whose scope already has its one client.
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

/** A scope's Slack client: each call reaches the cached client of the token `tokenOf` reads then. */
export type ScopeClient = webApi.WebClient & {
  /** The token to use for `installed`: the renewed one while `installed` is the one Slack refused. */
  tokenFor(installed: string): string;
};

/**
 * A client whose token is read on every call (OAuth mode: token rotation replaces it while the scope keeps
 * running), built of no WebClient of its own: every property is the current token's cached client's. A
 * call Slack refuses for the token it read is made once more when `renew` finds a newer one (rotated on
 * another replica a moment ago). When `tokenOf` throws (on hold, uninstalled), calls reject with its error,
 * except those that name their own token (`{ token }`), which go out with it.
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
  const current = (): webApi.WebClient => clients.for(tokenFor(tokenOf()), options, renewal);
  return new Proxy({} as ScopeClient, {
    get(_target, property) {
      if (property === 'tokenFor') return tokenFor;
      let client: webApi.WebClient;
      try {
        client = current();
      } catch (error) {
        return refused(error, [property], (token) => clients.for(token, options));
      }
      const value = Reflect.get(client, property, client) as unknown;
      return typeof value === 'function' ? value.bind(client) : value;
    },
  });
}

/**
 * What a property of a client with no usable token gives: a path whose call rejects with `error`, unless the
 * call names its own token (then it is made with that token's client).
 */
function refused(
  error: unknown,
  path: PropertyKey[],
  withToken: (token: string) => webApi.WebClient,
): unknown {
  const call = (...args: unknown[]) => {
    const token = (args[0] as { token?: unknown } | undefined)?.token;
    if (typeof token !== 'string') return Promise.reject(error);
    let owner: unknown;
    let target: unknown = withToken(token);
    for (const key of path) {
      owner = target;
      target = Reflect.get(target as object, key);
    }
    return (target as (...a: unknown[]) => unknown).apply(owner, args);
  };
  return new Proxy(call, { get: (_t, key) => refused(error, [...path, key], withToken) });
}
