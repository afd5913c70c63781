import type { SlackDeps } from './listeners/index.js';
import type { SlackGateway } from './slack-gateway.js';

export type { SlackAppOptions } from './bolt-core.js';
export type { HttpRoute, RouteAnswer } from './http-edge.js';

export interface SlackApp {
  gateway: SlackGateway;
  mode: 'http' | 'socket';
  register(deps: Omit<SlackDeps, 'afterAck'>): void;
  /** Starts receiving; resolves the HTTP port (Slack requests in HTTP mode, health routes in both). */
  start(): Promise<number>;
  /**
   * Whether Slack can reach the bot: in Socket Mode the socket is connected; in HTTP mode auth.test
   * succeeded (checked at start, retried in the background until it does).
   */
  connected(): boolean;
  /** Waits until no listener is running, at most `timeoutMs`; resolves how many were still running. */
  drain(timeoutMs: number): Promise<number>;
  /** Stops receiving Slack requests; the Web API client keeps working so acknowledged work can finish. */
  stop(): Promise<void>;
  /** Closes the Web API side (per-channel posting queue); call after every drain. */
  close(): Promise<void>;
}
