import type { Logger } from '../../logger.js';
import type { AccessPolicy } from '../../services/access-policy.js';
import type { JobService } from '../../services/job-service.js';

/** What listeners may use: services, never adapters. */
export interface SlackDeps {
  jobs: JobService;
  access: AccessPolicy;
  logger: Logger;
}
