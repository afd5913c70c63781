import { withTimeoutSignal } from '../common/timeout-signal.js';
import type { Delivery } from '../delivery/domain.js';
import { DeliveryAttemptError } from '../delivery/ports.js';
import { postJsonText } from '../platform/json-post.js';
import { plainTextOf } from './listeners/respond-safely.js';
import type { SlackMessage } from './messages/types.js';
import type { BlocksGate } from './new-blocks.js';

/**
 * One POST to a response_url: Slack answers 200 when it took the answer, 4xx when it never will (used up,
 * expired, a refused payload: a refused layout is sent once more as plain text), 5xx or nothing when the
 * outcome is unknown. Not paced: it is no Web API method, and each URL serves one person's request.
 */
export async function respondOnce(
  url: string,
  lease: () => Promise<Delivery | undefined>,
  timeoutMs: number,
  gate: BlocksGate,
) {
  const delivery = await lease();
  if (!delivery) return { sent: false as const };
  const payload = delivery.payload as { text?: string; blocks?: SlackMessage['blocks'] } & Record<
    string,
    unknown
  >;
  const body = { ...payload, blocks: await gate.blocksFor(payload.blocks) };
  const first = await postJson(url, body, timeoutMs);
  let status = first.status;
  // Slack answers a refused payload with 400 and the error as the body (`invalid_blocks`).
  const fewer =
    status === 400 ? await gate.retryWithout(body.blocks, first.error, payload.blocks) : undefined;
  if (fewer) {
    ({ status } = await postJson(url, { ...body, blocks: fewer }, timeoutMs));
    if (status >= 200 && status < 300) await gate.confirm();
  }
  if (status === 400 && Array.isArray(body.blocks) && body.blocks.length > 0)
    ({ status } = await postJson(
      url,
      { ...body, blocks: undefined, text: plainTextOf(body as SlackMessage) },
      timeoutMs,
    ));
  if (status >= 200 && status < 300) return { sent: true as const, delivery, ts: undefined };
  if (status >= 400 && status < 500 && status !== 429)
    throw new DeliveryAttemptError({ kind: 'permanent', code: `response_url_${status}` });
  throw new DeliveryAttemptError({ kind: 'unknown', code: `response_url_${status || 'failed'}` });
}

/**
 * The HTTP status (0 when no answer came: timeout, reset) and the start of the body, which is Slack's error
 * on a 4xx. The body is always read to the end.
 */
async function postJson(
  url: string,
  body: unknown,
  timeoutMs: number,
): Promise<{ status: number; error: string }> {
  try {
    return await withTimeoutSignal(timeoutMs, async (signal) => {
      const answer = await postJsonText(url, JSON.stringify(body), signal);
      return { status: answer.status, error: answer.body.slice(0, 100).trim() };
    });
  } catch {
    return { status: 0, error: '' };
  }
}
