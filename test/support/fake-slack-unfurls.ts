import { traceRefusal } from './fake-slack-arguments.js';
import { checkMessage } from './slack-block-kit-limits.js';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Work Object entity types Slack knows (@slack/types `EntityType`). */
const ENTITY_TYPES = new Set([
  'slack#/entities/task',
  'slack#/entities/file',
  'slack#/entities/item',
  'slack#/entities/incident',
  'slack#/entities/content_item',
]);

interface SharedMessage {
  channel: string;
  ts: string;
  unfurlId: string;
  source: 'composer' | 'conversations_history';
  urls: Set<string>;
}

/**
 * `chat.unfurl` as Slack takes it: only for a message Slack announced in a `link_shared` event (`share`),
 * addressed by `unfurl_id` + `source` or by `channel` + `ts` (one pair, complete), with previews keyed by
 * URLs of that message, each a valid attachment (Block Kit limits), and Work Object entities whose
 * `app_unfurl_url` is one of those URLs. A repeat replaces the previews of the same URLs.
 */
export class FakeSlackUnfurls {
  private readonly shared: SharedMessage[] = [];
  /** Previews attached per message (`channel:ts`), by URL: what a person sees under the message. */
  readonly attached = new Map<string, Map<string, Json>>();
  /** Work Object entities attached per message, by URL. */
  readonly entities = new Map<string, Map<string, Json>>();
  /** Every refusal, for tests that assert none happened. */
  readonly refusals: string[] = [];
  /** False: the app has no Work Objects enabled, and Slack refuses `metadata` as it does then. */
  workObjects = true;

  /** Slack saw links in a message and told the app (the `link_shared` event a test sends next). */
  share(message: Omit<SharedMessage, 'urls'> & { urls: string[] }): void {
    this.shared.push({ ...message, urls: new Set(message.urls) });
  }

  /** The previews under a message, by URL. */
  previewsOf(channel: string, ts: string): Map<string, Json> {
    return this.attached.get(`${channel}:${ts}`) ?? new Map();
  }

  answer(method: string, args: Json): Json | undefined {
    if (method !== 'chat.unfurl') return undefined;
    const error = (code: string) => {
      this.refusals.push(code);
      traceRefusal(method, code);
      return { ok: false, error: code };
    };
    const byId = args.unfurl_id !== undefined || args.source !== undefined;
    const byTs = args.channel !== undefined || args.ts !== undefined;
    if (byId === byTs) return error('invalid_arguments');
    let message: SharedMessage | undefined;
    if (byId) {
      if (!args.unfurl_id || !args.source) return error('invalid_arguments');
      if (args.source !== 'composer' && args.source !== 'conversations_history')
        return error('invalid_source');
      message = this.shared.find((m) => m.unfurlId === args.unfurl_id && m.source === args.source);
      if (!message) return error('invalid_unfurl_id');
    } else {
      if (!args.channel || !args.ts) return error('invalid_arguments');
      message = this.shared.find((m) => m.channel === args.channel && m.ts === args.ts);
      if (!message) return error('cannot_find_message');
    }
    const unfurls = args.unfurls;
    const metadata = args.metadata;
    if (unfurls === undefined && metadata === undefined) return error('missing_unfurls');
    if (unfurls !== undefined && !isObject(unfurls)) return error('invalid_unfurls_format');
    for (const [url, preview] of Object.entries(unfurls ?? {})) {
      if (!message.urls.has(url)) return error('cannot_unfurl_url');
      if (!isObject(preview)) return error('invalid_unfurls_format');
      if (preview.blocks === undefined && typeof preview.text !== 'string')
        return error('invalid_unfurls_format');
      const verdict = checkMessage({ text: preview.text, blocks: preview.blocks });
      if (!verdict.ok) return error(verdict.error);
    }
    const entities = metadata === undefined ? [] : this.checkEntities(metadata, message);
    if (typeof entities === 'string') return error(entities);
    const key = `${message.channel}:${message.ts}`;
    const attached = this.attached.get(key) ?? new Map<string, Json>();
    for (const [url, preview] of Object.entries(unfurls ?? {})) attached.set(url, preview as Json);
    this.attached.set(key, attached);
    const objects = this.entities.get(key) ?? new Map<string, Json>();
    for (const entity of entities) objects.set(String(entity.app_unfurl_url), entity);
    this.entities.set(key, objects);
    return { ok: true };
  }

  /** The entities, or Slack's error code for the first one it would refuse. */
  private checkEntities(metadata: unknown, message: SharedMessage): Json[] | string {
    if (!this.workObjects) return 'invalid_metadata';
    if (!isObject(metadata) || !Array.isArray(metadata.entities)) return 'invalid_metadata';
    for (const entity of metadata.entities as unknown[]) {
      if (!isObject(entity) || !ENTITY_TYPES.has(String(entity.entity_type))) return 'invalid_metadata';
      if (!message.urls.has(String(entity.app_unfurl_url)) || typeof entity.url !== 'string')
        return 'invalid_metadata';
      const ref = entity.external_ref;
      const payload = entity.entity_payload;
      if (!isObject(ref) || typeof ref.id !== 'string' || ref.id === '') return 'invalid_metadata';
      const title = isObject(payload) && isObject(payload.attributes) ? payload.attributes.title : undefined;
      if (!isObject(title) || typeof title.text !== 'string' || title.text === '') return 'invalid_metadata';
    }
    return metadata.entities as Json[];
  }
}
