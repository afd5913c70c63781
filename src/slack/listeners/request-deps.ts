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
   * A listener built from the request's deps: `make(deps)` runs once per set of deps (the first request that
   * brings them) and is kept only while those deps live, so a callback's own state is per tenant exactly as
   * when each tenant had its own app. A request with none of these deps reaches no listener built here
   * (as if it were not registered).
   */
  each<A>(make: (deps: D) => (args: A) => Promise<void>): (args: A & { context: Context }) => Promise<void>;
}

export function requestDeps<D extends object>(of: (context: Context) => D | undefined): RequestDeps<D> {
  return {
    of,
    each<A>(make: (deps: D) => (args: A) => Promise<void>) {
      const made = new WeakMap<D, (args: A) => Promise<void>>();
      return async (args: A & { context: Context }): Promise<void> => {
        const deps = of(args.context);
        if (!deps) return;
        let listener = made.get(deps);
        if (!listener) {
          listener = make(deps);
          made.set(deps, listener);
        }
        await listener(args);
      };
    },
  };
}

/**
 * The same requests' deps narrowed to what some listeners need (the assistant surface, agent sessions),
 * the narrowed set made once per set of deps; a request whose deps lack it has none of these.
 */
export function narrowed<D extends object, N extends object>(
  deps: RequestDeps<D>,
  narrow: (deps: D) => N | undefined,
): RequestDeps<N> {
  const made = new WeakMap<D, N | null>();
  return requestDeps((context) => {
    const all = deps.of(context);
    if (!all) return undefined;
    let one = made.get(all);
    if (one === undefined) {
      one = narrow(all) ?? null;
      made.set(all, one);
    }
    return one ?? undefined;
  });
}
