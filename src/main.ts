import { existsSync } from 'node:fs';
import { createDocsAgent } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { describeError } from './errors.js';

/** Process wiring: config, signals and last-resort error handlers. The app itself is built in app.ts. */
async function main(): Promise<void> {
  // A local .env is a convenience for trying the bot; variables set in the environment win.
  if (existsSync('.env')) process.loadEnvFile('.env');
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const agent = createDocsAgent(config);
  const { logger } = agent;

  // A stray rejection is logged, never fatal: one bad request must not take every thread down with it.
  process.on('unhandledRejection', (reason) => {
    logger.error({ error: describeError(reason) }, 'unhandled promise rejection');
  });
  process.on('uncaughtException', (error) => {
    logger.fatal({ error: describeError(error) }, 'uncaught exception; exiting');
    process.exit(1);
  });

  let shuttingDown = false;
  const shutdown = (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      logger.warn('shutdown took longer than 10 s; exiting');
      process.exit(1);
    }, 10_000);
    force.unref();
    agent.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ error: describeError(error) }, 'error during shutdown');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  try {
    await agent.start();
  } catch (error) {
    logger.fatal({ error: describeError(error) }, 'docs-agent could not start');
    process.exit(1);
  }
}

void main();
