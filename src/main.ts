import { existsSync } from 'node:fs';
import { ConfigError, loadConfig } from './common/config.js';
import { AppError, describeError } from './common/errors.js';
import { createDocsAgent } from './composition/app.js';
import { FORCED_EXIT_MS } from './composition/shutdown-budget.js';

const forcedExitText = `${FORCED_EXIT_MS / 1000} s`;

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

  // SIGTERM/SIGINT: readiness turns 503, the receiver stops taking requests, acknowledged work finishes,
  // polls go back to the queue and connections close (app.ts `stop()`; its steps' budgets, in
  // composition/shutdown-budget.ts, add up to less than FORCED_EXIT_MS). Whatever still hangs then is
  // abandoned: the process exits so the orchestrator's grace period is kept.
  let shuttingDown = false;
  const shutdown = (signal: NodeJS.Signals | 'fatal', exitCode = 0) => {
    if (shuttingDown) {
      logger.warn({ signal }, 'second signal during shutdown; exiting now');
      process.exit(1);
    }
    shuttingDown = true;
    logger.info(
      { signal },
      `shutting down: no new requests; finishing work in flight (at most ${forcedExitText})`,
    );
    const force = setTimeout(() => {
      logger.warn(`shutdown took longer than ${forcedExitText}; exiting`);
      process.exit(1);
    }, FORCED_EXIT_MS);
    force.unref();
    agent.stop().then(
      () => {
        logger.info({ signal }, 'shutdown complete');
        process.exit(exitCode);
      },
      (error: unknown) => {
        logger.error({ error: describeError(error) }, 'error during shutdown');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  // Single-workspace mode with its token revoked or rejected, or the app uninstalled: nothing can be sent.
  // One clear line, then the graceful stop (well under 30 s) and a non-zero exit, so the orchestrator
  // restarts the bot (and start-up says what to fix) or alerts, instead of a process that fails every call.
  agent.onFatal((reason) => {
    logger.fatal(
      { reason },
      `Slack no longer accepts the bot (${reason}): reinstall the app or update SLACK_BOT_TOKEN. Exiting.`,
    );
    shutdown('fatal', 2);
  });
  process.on('SIGINT', () => shutdown('SIGINT'));

  try {
    await agent.start();
  } catch (error) {
    // A rejected token (or other coded start failure) is said in one line, with what to do.
    const message = error instanceof AppError ? error.message : 'docs-agent could not start';
    logger.fatal({ error: describeError(error) }, message);
    process.exit(1);
  }
}

void main();
