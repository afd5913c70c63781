import type { App } from '@slack/bolt';
import { describeError } from '../../../errors.js';
import { accessDeniedMessage, parseDocsAgentCommand, tooLongMessage } from '../../command-text.js';
import { describeSlackDeliveryFailure } from '../../views/failures.js';
import { docsAgentHelpView } from '../../views/help.js';
import type { SlackDeps } from '../deps.js';

/** `/docs-agent <instruction>`: acknowledged at once; the card, the job and its polling follow. */
export function registerDocsAgentCommand(app: App, deps: SlackDeps): void {
  app.command('/docs-agent', async ({ command, ack, respond }) => {
    const access = deps.access.check(command.user_id, command.channel_id);
    if (!access.ok) {
      await ack({ response_type: 'ephemeral', text: accessDeniedMessage(access.reason) });
      return;
    }
    const parsed = parseDocsAgentCommand(command.text);
    if (parsed.kind === 'help') {
      await ack({ response_type: 'ephemeral', ...docsAgentHelpView(command.command) });
      return;
    }
    if (parsed.kind === 'too_long') {
      await ack({ response_type: 'ephemeral', text: tooLongMessage(parsed.length) });
      return;
    }
    await ack();
    const result = await deps.jobs.start({
      teamId: command.team_id ?? null,
      channelId: command.channel_id,
      threadTs: null,
      requesterId: command.user_id,
      prompt: parsed.prompt,
      origin: 'command',
    });
    if (!result.ok && result.stage === 'card') {
      deps.logger.info(
        { channelId: command.channel_id, error: describeError(result.error) },
        'could not post job card',
      );
      await respond({
        response_type: 'ephemeral',
        text: describeSlackDeliveryFailure((result.error as { code?: string }).code),
      }).catch((error: unknown) =>
        deps.logger.warn({ error: describeError(error) }, 'could not answer via response_url'),
      );
    }
  });
}
