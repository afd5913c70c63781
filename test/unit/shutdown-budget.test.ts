import { describe, expect, it } from 'vitest';
import { SHUTDOWN_BUDGET_MS, SHUTDOWN_DEADLINE_MS } from '../../src/composition/app-steps.js';

describe('shutdown budget', () => {
  it('gives every step its turn: the steps, run one after the other, end well before the forced exit', () => {
    const total = Object.values(SHUTDOWN_BUDGET_MS).reduce((sum, ms) => sum + ms, 0);
    // A second of headroom for the event loop, logging and process exit itself.
    expect(total).toBeLessThanOrEqual(SHUTDOWN_DEADLINE_MS - 1_000);
  });
});
