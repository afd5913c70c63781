import type { Logger } from '../../src/common/logger.js';
import { DocsApiClient } from '../../src/platform/docs-client.js';
import { FAKE_API_KEY, FAKE_PROJECT_ID, type FakeDocs } from './fake-docs.js';

/** The real docs client pointed at the fake platform, with fast retries (unit tests of paging and reads). */
export function docsClientFor(docs: FakeDocs, logger: Logger): DocsApiClient {
  return new DocsApiClient({
    baseUrl: docs.url,
    apiKey: FAKE_API_KEY,
    projectId: FAKE_PROJECT_ID,
    timeoutMs: 2000,
    logger,
    retryBaseMs: 1,
  });
}
