import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { STORE_ERROR_LOG_WINDOW_MS, storeErrorListener } from '../../src/state/store-errors.js';

describe('a store or queue error listener', () => {
  it('writes one line per window when every command is refused, and counts the rest into the next', () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger({
      level: 'info',
      secrets: [],
      destination: { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
    });
    let now = 1_000;
    const listener = storeErrorListener(logger, 'alert worker error', 'error', () => now);
    const oom = new Error("OOM command not allowed when used memory > 'maxmemory'.");
    for (let i = 0; i < 5_000; i += 1) listener(oom);
    expect(lines).toHaveLength(1);
    now += STORE_ERROR_LOG_WINDOW_MS;
    listener(oom);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ msg: 'alert worker error', repeated: 4_999 });
    // A lost connection is the connection's to report: nothing at info.
    listener(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    expect(lines).toHaveLength(2);
  });
});
