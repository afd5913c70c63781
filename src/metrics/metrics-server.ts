import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describeError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';

/** Anything /metrics can serve: one workspace's `Metrics`, or OAuth mode's `TenantMetrics` summing its tenants. */
export interface MetricsExposition {
  render(): Promise<{ contentType: string; body: string }>;
}

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/**
 * GET /metrics on its own port (METRICS_HOST:METRICS_PORT, loopback by default): the port Slack reaches
 * must not expose internals (job counts, error codes, quotas) to the internet.
 */
export async function startMetricsServer(
  metrics: MetricsExposition,
  where: { host: string; port: number },
  logger: Logger,
): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('Not found: metrics are served at GET /metrics\n');
      return;
    }
    metrics.render().then(
      ({ contentType, body }) => {
        res.writeHead(200, { 'content-type': contentType });
        res.end(body);
      },
      (error: unknown) => {
        logger.warn({ error: describeError(error) }, 'rendering /metrics failed');
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('metrics unavailable\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(where.port, where.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
