import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { clientAddress, ProxyTrust, parseTrustedProxies } from '../../src/common/client-address.js';

/*
 * compose.yml (the bot, Redis with AOF, Caddy with automatic HTTPS) cannot be started here (no Docker engine):
 * it parses, every file it names exists, and the pieces agree with each other and with the bot.
 */

const ROOT = join(import.meta.dirname, '..', '..');
const text = readFileSync(join(ROOT, 'compose.yml'), 'utf8');
const compose = parse(text);
const caddyfile = readFileSync(join(ROOT, 'Caddyfile'), 'utf8');
const envExample = readFileSync(join(ROOT, '.env.example'), 'utf8');

describe('compose.yml', () => {
  it('runs the bot from the Dockerfile, Redis and Caddy', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['caddy', 'docs-agent', 'redis']);
    expect(compose.services['docs-agent'].build).toBe('.');
    expect(existsSync(join(ROOT, 'Dockerfile'))).toBe(true);
    expect(compose.services['docs-agent'].env_file).toBe('.env');
  });

  it('names only files that exist in the repository', () => {
    const mounts: string[] = Object.values(compose.services).flatMap(
      (service) => ((service as { volumes?: string[] }).volumes ?? []) as string[],
    );
    const files = mounts.map((m) => m.split(':')[0] as string).filter((source) => source.startsWith('.'));
    expect(files).toEqual(['./Caddyfile']);
    for (const file of files) expect(existsSync(join(ROOT, file)), file).toBe(true);
    // Named volumes are declared.
    for (const name of mounts.map((m) => m.split(':')[0] as string).filter((s) => !s.startsWith('.')))
      expect(Object.keys(compose.volumes)).toContain(name);
  });

  it('keeps Redis on an append-only file, with a password, never evicting', () => {
    const command: string[] = compose.services.redis.command;
    expect(command.slice(command.indexOf('--appendonly'), command.indexOf('--appendonly') + 2)).toEqual([
      '--appendonly',
      'yes',
    ]);
    expect(command).toContain('noeviction');
    expect(command[command.indexOf('--requirepass') + 1]).toMatch(/^\$\{REDIS_PASSWORD:\?/);
    expect(compose.services['docs-agent'].environment.REDIS_URL).toMatch(
      /^redis:\/\/:\$\{REDIS_PASSWORD.*\}@redis:6379$/,
    );
    expect(compose.services['docs-agent'].depends_on.redis.condition).toBe('service_healthy');
  });

  it('puts Caddy in front: HTTPS for PUBLIC_HOST, proxying to the bot’s PORT, never /metrics', () => {
    const bot = compose.services['docs-agent'];
    expect(compose.services.caddy.ports).toEqual(['80:80', '443:443', '443:443/udp']);
    expect(compose.services.caddy.environment.PUBLIC_HOST).toMatch(/^\$\{PUBLIC_HOST:\?/);
    expect(caddyfile).toMatch(/^\{\$PUBLIC_HOST\} \{$/m);
    expect(caddyfile).toContain(`reverse_proxy docs-agent:${bot.environment.PORT}`);
    // Only Caddy publishes ports; the bot's and its metrics' stay inside the compose network.
    expect(bot.ports).toBeUndefined();
    expect(bot.expose).toEqual([bot.environment.PORT]);
    expect(compose.services.redis.ports).toBeUndefined();
  });

  it('believes Caddy’s X-Forwarded-For (TRUST_PROXY is Caddy’s fixed address), so installs count the browser', () => {
    const trust = compose.services['docs-agent'].environment.TRUST_PROXY;
    expect(compose.services.caddy.networks.default.ipv4_address).toBe(trust);
    expect(compose.networks.default.ipam.config[0].subnet).toBe('172.30.44.0/24');
    const parsed = parseTrustedProxies(trust);
    if (!parsed.ok) throw new Error(parsed.problem);
    // Caddy connects from its address and names the browser in X-Forwarded-For.
    expect(clientAddress(`::ffff:${trust}`, '203.0.113.5', new ProxyTrust(parsed.proxies))).toBe(
      '203.0.113.5',
    );
  });

  it('documents every variable it needs in .env.example', () => {
    const used = new Set([...text.matchAll(/\$\{([A-Z_]+)/g)].map((m) => m[1]));
    expect([...used].sort()).toEqual(['PUBLIC_HOST', 'REDIS_PASSWORD']);
    for (const name of used) expect(envExample).toMatch(new RegExp(`^# ${name}=`, 'm'));
  });
});
