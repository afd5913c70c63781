import { type Dispatcher, Pool } from 'undici';

/** Sockets kept to one upstream origin by the whole process (every tenant's docs clients together). */
export const CONNECTIONS_PER_ORIGIN = 16;

export interface OriginPoolOptions {
  /** Connect timeout of the origin's pool (the first caller's; a request's own timeouts are per request). */
  connectTimeoutMs: number;
  connections?: number;
}

/**
 * The process's undici dispatchers: one keep-alive `Pool` per upstream origin, handed to every docs client of
 * every tenant (OAuth mode builds a tenant's scope per workspace; its sockets are the process's). Header and
 * body timeouts are set per request, so callers with different timeouts share a pool. Closed once, when the
 * process stops; a scope's stop leaves it open for the others.
 */
export class OriginDispatchers {
  private readonly pools = new Map<string, Pool>();
  private closed: Promise<void> | undefined;

  /** The pool for `origin` (`https://host:port`), built on first use. */
  for(origin: string, options: OriginPoolOptions): Dispatcher {
    if (this.closed) throw new Error('the process’s HTTP pools are closed');
    let pool = this.pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, {
        connections: options.connections ?? CONNECTIONS_PER_ORIGIN,
        keepAliveTimeout: 30_000,
        connectTimeout: Math.min(options.connectTimeoutMs, 10_000),
      });
      this.pools.set(origin, pool);
    }
    return pool;
  }

  /** Origins with a pool now (tests, metrics). */
  get size(): number {
    return this.pools.size;
  }

  /** Closes every pool once (requests under way finish first). */
  close(): Promise<void> {
    this.closed ??= Promise.all([...this.pools.values()].map((pool) => pool.close())).then(() => undefined);
    return this.closed;
  }
}
