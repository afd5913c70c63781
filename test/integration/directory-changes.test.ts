import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { type DirectoryChange, DirectoryChangesTail } from '../../src/state/redis/directory-changes.js';
import { closeRedis, connectRedis, type RedisClient } from '../../src/state/redis/redis-client.js';
import { RedisTenantDirectory } from '../../src/state/redis/redis-tenant-directory.js';
import { installation, testBox } from '../contract/tenant-directory.contract.js';
import { waitFor } from '../support/http.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

const logger = createLogger({ level: 'silent', secrets: [] });
const PREFIX = 'docs-agent:directory:';

/**
 * Issue 34: a replica follows the directory by its changes. Every directory write adds its tenant to a
 * capped stream in the same script; the tail hands on the tenants named, and `all` when entries it never
 * read were trimmed away while it was disconnected.
 */
describe('the directory’s stream of changes', () => {
  let redis: RedisServer;
  let client: RedisClient;
  let admin: ReturnType<typeof createClient>;
  let tail: DirectoryChangesTail;
  const heard: DirectoryChange[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    client = await connectRedis(redis.url, logger, { failFast: true });
    admin = createClient({ url: redis.url });
    await admin.connect();
    tail = new DirectoryChangesTail(client, `${PREFIX}tenant-changes`, logger);
    await tail.start((change) => heard.push(change));
  });
  afterAll(async () => {
    await tail?.close();
    await closeRedis(client);
    await admin?.close();
    await redis?.stop();
  });

  const directory = () => new RedisTenantDirectory(client, PREFIX, testBox());
  const named = () => heard.flatMap((change) => (change === 'all' ? ['all'] : change));

  it('names each tenant a write changed: install, settings, uninstall; a refused write names none', async () => {
    const d = directory();
    await d.saveInstallation(installation('T0ONE'));
    await waitFor(() => named().includes('T0ONE'), { what: 'the install heard' });
    expect(await d.saveSettings('T0ONE', { projects: [] }, 0)).toBe(true);
    expect(await d.saveSettings('T0ONE', { projects: [] }, 0)).toBe(false); // a stale version: no write
    await d.removeTenant('T0ONE', Date.now() + 60_000);
    await waitFor(() => named().filter((t) => t === 'T0ONE').length === 3, { what: 'three changes heard' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(named()).toEqual(['T0ONE', 'T0ONE', 'T0ONE']);
  });

  it('after a lost connection: goes on from where it was, or says `all` when what it missed was trimmed', async () => {
    const readerId = async () =>
      String(await admin.sendCommand(['CLIENT', 'LIST']))
        .split('\n')
        .find((line) => line.includes('cmd=xread'))
        ?.match(/^id=(\d+)/)?.[1];
    const d = directory();
    // Missed while away, still in the stream: heard once it reads again, and nothing more.
    heard.length = 0;
    await admin.sendCommand(['CLIENT', 'KILL', 'ID', (await waitFor(readerId, { what: 'the reader' }))!]);
    await d.saveInstallation(installation('T0AWAY'));
    await waitFor(() => named().includes('T0AWAY'), {
      what: 'the change made while away',
      timeoutMs: 10_000,
    });
    expect(named()).toEqual(['T0AWAY']);
    // Missed and trimmed (the cap passed it): it cannot say which, so every held scope is re-read. (After a
    // failed read the tail waits 500 ms: these writes and the trim land while it is away.)
    heard.length = 0;
    await waitFor(readerId, { what: 'the reader back' });
    await admin.sendCommand(['CLIENT', 'KILL', 'ID', (await readerId())!]);
    await d.saveInstallation(installation('T0GONE'));
    await admin.xTrim(`${PREFIX}tenant-changes`, 'MAXLEN', 0);
    await d.saveInstallation(installation('T0LATER'));
    await waitFor(() => heard.includes('all'), { what: '`all` after a trimmed gap', timeoutMs: 10_000 });
    await waitFor(() => named().includes('T0LATER'), { what: 'the entry after the gap' });
  });
});
