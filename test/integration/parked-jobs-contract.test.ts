import { randomUUID } from 'node:crypto';
import { beforeAll, describe } from 'vitest';
import { MemoryParkedJobs } from '../../src/state/memory/memory-parked-jobs.js';
import type { RedisClient } from '../../src/state/redis/redis-client.js';
import { RedisParkedJobs } from '../../src/state/redis/redis-parked-jobs.js';
import { parkedJobsContract } from '../contract/parked-jobs.contract.js';
import { redisForReplicas } from '../support/redis-replicas.js';

describe('parked jobs in memory', () => {
  parkedJobsContract(async () => ({ parked: new MemoryParkedJobs(), close: async () => {} }));
});

describe('parked jobs in Redis', () => {
  const redis = redisForReplicas();
  let client: RedisClient;
  beforeAll(async () => {
    client = await redis.replica();
  });

  // A prefix of its own per test: nothing left by one is seen by the next.
  parkedJobsContract(async () => ({
    parked: new RedisParkedJobs(client, `parked-${randomUUID()}`),
    close: async () => {},
  }));
});
