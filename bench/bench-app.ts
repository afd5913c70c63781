import type { AgentOptions } from '../src/composition/app.js';
import { createDocsAgent, createLogger, loadConfig, secretsOf } from './product.js';

export interface BenchApp {
  /** POST /slack/events */
  url: string;
  /** Log lines written so far (discarded, only counted). */
  lines(): number;
  stop(): Promise<void>;
}

/**
 * Starts the real app as `main.ts` builds it (`createDocsAgent` through bench/product.ts), on a complete
 * environment; log lines are counted and discarded. Imports nothing from test/support, so the scale bench's
 * app process can run as plain JavaScript.
 */
export async function startAppWithEnv(
  env: Record<string, string>,
  options: AgentOptions = {},
): Promise<BenchApp> {
  const config = loadConfig(env);
  let lines = 0;
  const logger = createLogger({
    level: config.logLevel,
    secrets: secretsOf(config),
    destination: { write: () => lines++ },
  });
  const agent = createDocsAgent(config, { logger, ...options });
  const port = await agent.start();
  return { url: `http://127.0.0.1:${port}/slack/events`, lines: () => lines, stop: () => agent.stop() };
}
