import { describeError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';

/** `ok` when Redis answers a PING within a second, else `unreachable`. */
export async function pingState(client: { ping(): Promise<unknown> }): Promise<'ok' | 'unreachable'> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      client.ping(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), 1_000);
      }),
    ]);
    return 'ok';
  } catch {
    return 'unreachable';
  } finally {
    clearTimeout(timer);
  }
}

/** Waits for a shutdown step at most `ms`; a step that fails or overruns is logged and left behind. */
export async function within(
  step: Promise<unknown>,
  ms: number,
  what: string,
  logger: Logger,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    step.then(
      () => 'done' as const,
      (error: unknown) => {
        logger.warn({ error: describeError(error) }, `shutdown: ${what} failed`);
        return 'failed' as const;
      },
    ),
    new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), ms);
    }),
  ]);
  clearTimeout(timer);
  if (outcome === 'timeout') logger.warn({ ms }, `shutdown: ${what} took too long; moving on`);
}

export function stateNote(backend: 'redis' | 'in-memory'): string {
  return backend === 'redis'
    ? 'state is in Redis (REDIS_URL): jobs, threads and polls survive restarts and are shared by replicas'
    : 'state is in memory (set REDIS_URL to keep it across restarts)';
}
