import { startPlayground } from './playground.js';

/** `npm run demo`: the playground on http://localhost:3333 (DEMO_PORT to change it). */
const port = Number(process.env.DEMO_PORT ?? 3333);
try {
  const playground = await startPlayground({ port, logLevel: process.env.LOG_LEVEL ?? 'warn' });
  process.stdout.write(
    `docs-agent playground: open ${playground.url}\nThe real bot runs against a stand-in Slack and docs platform; no account needed. Ctrl+C to stop.\n`,
  );
  const stop = () => void playground.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} catch (error) {
  const code = (error as { code?: unknown }).code;
  process.stderr.write(
    code === 'EADDRINUSE'
      ? `Port ${port} is already in use: stop what runs there, or pick another port (DEMO_PORT=3334 npm run demo).\n`
      : `The playground did not start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
}
