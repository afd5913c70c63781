import { existsSync } from 'node:fs';

/**
 * The product as `npm start` runs it: the compiled `dist/` (`npm run bench` builds it first), not the
 * TypeScript sources through tsx, whose transform wraps every named closure in a helper call, adding work
 * per request that production never does. Everything the benchmarks take from the product comes from here,
 * so no object crosses between two copies of a module (their error classes would not match).
 */
const dist = new URL('../dist/', import.meta.url);
if (!existsSync(new URL('app.js', dist))) {
  throw new Error('dist/ is missing: run `npm run build` first (`npm run bench` does)');
}
const load = <T>(path: string) => import(new URL(path, dist).href) as Promise<T>;

export const { createDocsAgent } = await load<typeof import('../src/app.js')>('app.js');
export const { loadConfig, secretsOf } = await load<typeof import('../src/config.js')>('config.js');
export const { createLogger } = await load<typeof import('../src/logger.js')>('logger.js');
export const { newJobRecord } = await load<typeof import('../src/domain/job.js')>('domain/job.js');
export const { createMemoryJobStore } =
  await load<typeof import('../src/store/keyv-job-store.js')>('store/keyv-job-store.js');
export const { createRedisJobStore } =
  await load<typeof import('../src/store/redis-job-store.js')>('store/redis-job-store.js');
