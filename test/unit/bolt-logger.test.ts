import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { boltLogger } from '../../src/slack/bolt-logger.js';

describe('Bolt logger adapter', () => {
  it('writes enabled levels as one joined line and does not even format disabled ones', () => {
    const lines: string[] = [];
    const log = boltLogger(
      createLogger({ level: 'info', secrets: ['xoxb-secret'], destination: { write: (l) => lines.push(l) } }),
    );
    let formatted = 0;
    const payload = {
      toJSON: () => {
        formatted += 1;
        return { token: 'xoxb-secret' };
      },
    };
    log.debug('request body', payload);
    expect(formatted).toBe(0);
    expect(lines).toHaveLength(0);
    log.warn('request body', payload);
    expect(formatted).toBe(1);
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!) as { msg: string; component: string };
    expect(line.component).toBe('bolt');
    expect(line.msg).toContain('request body {"token":');
    expect(lines[0]).not.toContain('xoxb-secret');
  });
});
