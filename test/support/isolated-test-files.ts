/**
 * Integration files that replace modules or process-wide globals (`vi.mock`, spies on `globalThis`): each runs
 * with a module graph of its own. Every other integration file shares its worker's graph (vitest.config.ts:
 * importing src/ and its libraries once per worker instead of once per file; in CI that import was 536 s of
 * the whole suite's ~2,500 worker-seconds). test/unit/architecture-test-isolation.test.ts keeps this list true.
 */
export const ISOLATED_INTEGRATION_FILES = [
  'test/integration/oauth-edge-constructors.test.ts',
  'test/integration/scope-parts-on-first-use.test.ts',
];

/** What makes a file need its own module graph: a module mocked, or a global or process-wide spy/stub. */
export const NEEDS_ISOLATION =
  /\bvi\.(mock|doMock|unmock|resetModules|stubGlobal|stubEnv)\(|\bvi\.spyOn\((globalThis|global|process|console|Date|Math)\b/;
