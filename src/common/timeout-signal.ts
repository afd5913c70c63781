/**
 * Runs `work` with a signal that aborts after `ms` (with a `TimeoutError`, as `AbortSignal.timeout`'s does)
 * and disarms the timer once `work` settles. `AbortSignal.timeout` keeps its timer until it fires, however
 * early the request ended: §1's burst of ~500 response_url answers left ~500 timers that all fired in one
 * tick a timeout later, ~30 ms of the event loop with nothing left to abort (issue 43).
 */
export async function withTimeoutSignal<T>(
  ms: number,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
    ms,
  );
  // Like AbortSignal.timeout's: the request's socket, not its timeout, keeps the process alive.
  timer.unref();
  try {
    return await work(controller.signal);
  } finally {
    clearTimeout(timer);
  }
}
