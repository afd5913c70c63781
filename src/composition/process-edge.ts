import { OriginDispatchers } from '../platform/dispatchers.js';

/**
 * What talks to the outside, built once per process and shared by every scope (OAuth mode: every tenant's):
 * the HTTP pools to upstream origins. A scope's stop leaves it open; the process closes it last.
 */
export interface ProcessEdge {
  /** One undici pool per upstream origin (the docs platform's). */
  dispatchers: OriginDispatchers;
  /** Once, at the process's stop, after every scope stopped. */
  close(): Promise<void>;
}

export function createProcessEdge(): ProcessEdge {
  const dispatchers = new OriginDispatchers();
  return {
    dispatchers,
    close: async () => {
      await dispatchers.close();
    },
  };
}
