import { describe, expect, it } from 'vitest';
import { unfurlPayload } from '../../src/slack/messages/unfurls.js';
import type { WebClient } from '../../src/slack/slack-gateway.js';
import { unfurlOnce } from '../../src/slack/unfurl-call.js';

const URL_A = 'https://docs.acme.dev/a';
const payload = unfurlPayload([
  {
    url: URL_A,
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*a*' } }],
    text: 'a: 3 views',
    entity: {
      app_unfurl_url: URL_A,
      url: URL_A,
      external_ref: { id: 'p:/a' },
      entity_type: 'slack#/entities/content_item',
      entity_payload: { attributes: { title: { text: '/a' } } },
    },
  },
]);

/** A client whose chat.unfurl answers with `errors` in turn (then ok), recording each call. */
function client(errors: string[]) {
  const calls: Array<Record<string, unknown>> = [];
  const web = {
    chat: {
      unfurl: async (args: Record<string, unknown>) => {
        calls.push(args);
        const error = errors.shift();
        if (error) throw Object.assign(new Error(error), { data: { ok: false, error } });
        return { ok: true };
      },
    },
  } as unknown as WebClient;
  return { web, calls };
}

describe('chat.unfurl calls', () => {
  it('sends the previews and the Work Object together, addressed by unfurl_id and source', async () => {
    const c = client([]);
    const target = { kind: 'unfurl', channel: 'C1', ts: '1.1', unfurlId: 'u', source: 'composer' } as const;
    await unfurlOnce(c.web, target, payload, true);
    expect(c.calls).toHaveLength(1);
    expect(c.calls[0]).toMatchObject({ unfurl_id: 'u', source: 'composer', metadata: { entities: [{}] } });
    expect(c.calls[0]?.channel).toBeUndefined();
    expect(Object.keys(c.calls[0]?.unfurls as object)).toEqual([URL_A]);
  });

  it('sends the previews alone when Slack refuses the entities, and plain text when it refuses the layout', async () => {
    const refused = client(['invalid_metadata']);
    await unfurlOnce(refused.web, { kind: 'unfurl', channel: 'C1', ts: '1.1' }, payload, true);
    expect(refused.calls).toHaveLength(2);
    expect(refused.calls[1]).toMatchObject({ channel: 'C1', ts: '1.1' });
    expect(refused.calls[1]?.metadata).toBeUndefined();

    const plain = client([]);
    await unfurlOnce(plain.web, { kind: 'unfurl', channel: 'C1', ts: '1.1' }, payload, false);
    expect(plain.calls[0]?.unfurls).toEqual({ [URL_A]: { text: 'a: 3 views' } });
    expect(plain.calls[0]?.metadata).toBeUndefined();
  });

  it('passes any other refusal to the outbox', async () => {
    const c = client(['cannot_find_message']);
    await expect(
      unfurlOnce(c.web, { kind: 'unfurl', channel: 'C1', ts: '1.1' }, payload, true),
    ).rejects.toThrow('cannot_find_message');
    expect(c.calls).toHaveLength(1);
  });
});
