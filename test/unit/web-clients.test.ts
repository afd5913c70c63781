import { describe, expect, it } from 'vitest';
import { WebClients } from '../../src/slack/web-clients.js';

const options = { slackApiUrl: 'http://127.0.0.1:9/api/', retryConfig: { retries: 0 } };

describe('WebClients: the process’s Slack clients by token', () => {
  it('gives one client per token (and Bolt’s workspace), and keeps at most its bound, least recent out', () => {
    const clients = new WebClients(2);
    const alpha = clients.for('xoxb-alpha', options);
    expect(clients.for('xoxb-alpha', options)).toBe(alpha);
    // A workspace's own token: Bolt's client is the scope's.
    expect(clients.boltPool(() => false).getOrCreate('xoxb-alpha', { ...options, teamId: 'T0ALPHA' })).toBe(
      alpha,
    );
    // Bolt's per-request client of an org-wide install names the workspace: one per workspace of the org.
    expect(clients.boltPool(() => true).getOrCreate('xoxb-alpha', { ...options, teamId: 'T0ONE' })).not.toBe(
      alpha,
    );
    expect(clients.size).toBe(2);
    clients.for('xoxb-beta', options); // alpha (used before T0ONE's) leaves first
    expect(clients.size).toBe(2);
    expect(clients.for('xoxb-alpha', options)).not.toBe(alpha);
  });
});
