import type { EntityMetadata, LinkUnfurls } from '@slack/types';
import type { DeliveryTarget } from '../delivery/domain.js';
import type { UnfurlPayload } from './messages/unfurls.js';
import type { WebClient } from './slack-gateway.js';

/** Slack's answers when an app may not (or cannot) send Work Objects: the Block Kit previews still go. */
const WORK_OBJECT_REFUSALS = new Set([
  'invalid_metadata',
  'invalid_unfurl_metadata',
  'feature_not_enabled',
  'missing_entity_type',
  'invalid_entity_type',
  'invalid_entity_payload',
  'not_allowed_entity_type',
]);

const errorCode = (error: unknown) => (error as { data?: { error?: string } }).data?.error ?? '';

/**
 * One `chat.unfurl` for a delivery: the Block Kit previews keyed by URL and, where Slack and the app take
 * them, the same links as Work Object entities (clients that render Work Objects show those, the others
 * the previews). A refusal of the entities is answered by sending the previews alone; `withBlocks` false
 * (Slack refused the layout) sends each link's plain text instead.
 */
export async function unfurlOnce(
  client: WebClient,
  target: Extract<DeliveryTarget, { kind: 'unfurl' }>,
  payload: unknown,
  withBlocks: boolean,
): Promise<void> {
  const { unfurls, plain, entities } = (payload ?? {}) as Partial<UnfurlPayload>;
  const address =
    target.unfurlId && target.source
      ? { unfurl_id: target.unfurlId, source: target.source }
      : { channel: target.channel, ts: target.ts };
  const previews: LinkUnfurls = withBlocks
    ? ((unfurls ?? {}) as LinkUnfurls)
    : Object.fromEntries(Object.entries(plain ?? {}).map(([url, text]) => [url, { text }]));
  const call = (withEntities: boolean) =>
    client.chat.unfurl({
      ...address,
      unfurls: previews,
      ...(withEntities && entities?.length ? { metadata: { entities: entities as EntityMetadata[] } } : {}),
    });
  try {
    await call(withBlocks);
  } catch (error) {
    if (!withBlocks || !entities?.length || !WORK_OBJECT_REFUSALS.has(errorCode(error))) throw error;
    await call(false);
  }
}
