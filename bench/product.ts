import { existsSync } from 'node:fs';

/**
 * The product as `npm start` runs it: the compiled `dist/` (`npm run bench` builds it first), not the
 * TypeScript sources through tsx, whose transform wraps every named closure in a helper call, adding work
 * per request that production never does. Everything the benchmarks take from the product comes from here,
 * so no object crosses between two copies of a module (their error classes would not match).
 */
const dist = new URL('../dist/', import.meta.url);
if (!existsSync(new URL('main.js', dist))) {
  throw new Error('dist/ is missing: run `npm run build` first (`npm run bench` does)');
}
const load = <T>(path: string) => import(new URL(path, dist).href) as Promise<T>;

export const { createDocsAgent } =
  await load<typeof import('../src/composition/app.js')>('composition/app.js');
export const { loadConfig, secretsOf } =
  await load<typeof import('../src/common/config.js')>('shared/config.js');
export const { createLogger } = await load<typeof import('../src/common/logger.js')>('shared/logger.js');
export const { newJobRecord } = await load<typeof import('../src/jobs/domain/job.js')>('jobs/domain/job.js');
export const { createMemoryJobStore } =
  await load<typeof import('../src/state/keyv-job-store.js')>('state/keyv-job-store.js');
export const { createRedisJobStore } = await load<typeof import('../src/state/redis/redis-job-store.js')>(
  'state/redis/redis-job-store.js',
);
