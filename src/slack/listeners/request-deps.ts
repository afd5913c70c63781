import type { Context } from '@slack/bolt';

/**
 * Where a listener registered once finds the deps of the request it serves. In OAuth mode one Bolt app
 * serves every tenant, so a listener's deps (jobs, stores, gateway, settings…) are the request's tenant's,
 * read per request; single-workspace mode has one set. Nothing about the deps is read at registration.
 */
export interface RequestDeps<D> {
  /** The deps of the request whose context this is; undefined: this request has none of these. */
  of(context: Context): D | undefined;
  /**
   * A listener over the request's deps: `make(deps)` is called for each request it serves, so nothing is
   * kept per tenant between requests (issue 43 §2: a resident tenant costs no listener of its own). A
   * request with none of these deps reaches no listener built here (as if it were not registered).
   */
  each<A>(make: (deps: D) => (args: A) => Promise<void>): (args: A & { context: Context }) => Promise<void>;
}

export function requestDeps<D extends object>(of: (context: Context) => D | undefined): RequestDeps<D> {
  return {
    of,
    each<A>(make: (deps: D) => (args: A) => Promise<void>) {
      return async (args: A & { context: Context }): Promise<void> => {
        const deps = of(args.context);
        if (deps) await make(deps)(args);
      };
    },
  };
}

/**
 * The same requests' deps narrowed to what some listeners need (the assistant surface, agent sessions),
 * per request (nothing kept per tenant); a request whose deps lack it has none of these.
 */
export function narrowed<D extends object, N extends object>(
  deps: RequestDeps<D>,
  narrow: (deps: D) => N | undefined,
): RequestDeps<N> {
  return requestDeps((context) => {
    const all = deps.of(context);
    return all ? narrow(all) : undefined;
  });
}
