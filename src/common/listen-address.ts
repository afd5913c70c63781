import type { Config } from './config.js';

/** Where the bot's HTTP port listens: `HOST` when set (loopback for the playground), else every interface. */
export function listenOn(config: Pick<Config, 'port' | 'host'>): { port: number; host?: string } {
  return config.host ? { port: config.port, host: config.host } : { port: config.port };
}
