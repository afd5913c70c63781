/**
 * Everything the benchmarks take from the product, through static imports the compiler checks: a module
 * that moves breaks `npm run typecheck`, never only the benchmark run (a dynamic import of a `dist/` path
 * once rotted this way: typecheck passed while `npm run bench` failed before measuring anything). The other
 * bench modules import `../src` too, so one copy of each module is loaded and error classes match.
 *
 * `npm run bench` runs this under tsx, whose transform keeps function names (an `__name` call per named
 * closure created): a few tens of nanoseconds per request, far below the milliseconds measured. The
 * memory benchmark's app process is bundled by esbuild (bench/scale.ts) and runs plain JavaScript.
 */

export { loadConfig } from '../src/common/config.js';
export { secretsOf } from '../src/common/config-secrets.js';
export { createLogger } from '../src/common/logger.js';
export { secretBoxFromSettings } from '../src/common/secret-box.js';
export { createDocsAgent } from '../src/composition/app.js';
export { DIRECTORY_PREFIX } from '../src/composition/oauth/tenant-config.js';
export { newJobRecord } from '../src/jobs/domain/job.js';
export { tenantDirectoryFor } from '../src/state/adapters.js';
export { createMemoryJobStore } from '../src/state/keyv-job-store.js';
export { createRedisJobStore } from '../src/state/redis/redis-job-store.js';
export { RedisTenantDirectory } from '../src/state/redis/redis-tenant-directory.js';
