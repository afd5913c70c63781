import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopeClient, WebClients } from '../../src/slack/web-clients.js';

const OLD = 'xoxb-fake-rotated-away';
const NEW = 'xoxb-fake-rotated-in';

/** A Slack that takes only the new token, as right after a rotation elsewhere revoked the old one. */
describe("A scope's Slack client: a token rotated on another replica", () => {
  let server: Server;
  let url = '';
  const seen: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
        seen.push(token);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify(token === NEW ? { ok: true, user: {} } : { ok: false, error: 'invalid_auth' }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('uses the renewed token for the calls after a refusal, until the installation it reads has it too', async () => {
    let installed = OLD;
    let renewals = 0;
    const clients = new WebClients();
    const client = scopeClient(
      () => installed,
      clients,
      { slackApiUrl: url, retryConfig: { retries: 0 } },
      async (refused) => {
        renewals += 1;
        return refused === OLD ? NEW : undefined;
      },
    );
    await client.users.info({ user: 'U0ONE' });
    // The directory read that makes NEW this replica's token has not landed: NEW is used all the same.
    await client.users.info({ user: 'U0TWO' });
    await client.users.info({ user: 'U0THREE' });
    expect(seen).toEqual([OLD, NEW, NEW, NEW]);
    expect(renewals).toBe(1);
    // What Bolt's own per-request client is given for the installation as this process read it.
    expect(client.tokenFor(OLD)).toBe(NEW);
    // Once the installation has a newer token still, that one is used, never the remembered one.
    installed = 'xoxb-fake-newer';
    await expect(client.users.info({ user: 'U0FOUR' })).rejects.toThrow(/invalid_auth/);
    expect(seen.at(-1)).toBe('xoxb-fake-newer');
    expect(client.tokenFor('xoxb-fake-newer')).toBe('xoxb-fake-newer');
    // One WebClient for the process, whatever tokens it used; none of the scope's own.
    expect(clients.size).toBe(1);
  });
});
