import type { HttpRoute } from '../slack/slack-app.js';
import type { AdapterSet } from '../state/adapters.js';

export interface HealthSources {
  /** True from the moment shutdown began. */
  stopping(): boolean;
  state: AdapterSet['state'];
  slackConnected(): boolean;
}

/** /healthz (alive unless stopping) and /readyz (state answers, Slack connected, no shutdown begun). */
export function healthRoutes(sources: HealthSources): HttpRoute[] {
  return [
    {
      path: '/healthz',
      handle: () =>
        sources.stopping()
          ? { status: 503, body: { status: 'stopping' } }
          : { status: 200, body: { status: 'ok' } },
    },
    {
      // Readiness: send traffic here only while Redis answers, Slack is connected and no shutdown began.
      path: '/readyz',
      handle: async () => {
        const state = await sources.state();
        const slackState = sources.slackConnected() ? 'ok' : 'disconnected';
        const stopping = sources.stopping();
        const ready = !stopping && state !== 'unreachable' && slackState === 'ok';
        return {
          status: ready ? 200 : 503,
          body: {
            status: ready ? 'ready' : stopping ? 'stopping' : 'not_ready',
            checks: { state, slack: slackState, shuttingDown: stopping },
          },
        };
      },
    },
  ];
}
