import type { App } from '@slack/bolt';
import { describeError } from '../../../common/errors.js';
import {
  accessDeniedMessage,
  parseDocsAgentCommand,
  statusUsageMessage,
  tooLongMessage,
} from '../../command-text.js';
import { describeSlackDeliveryFailure } from '../../messages/failures.js';
import { docsAgentHelpMessage } from '../../messages/help.js';
import { jobListMessage, jobStatusErrorMessage, jobStatusMessage } from '../../messages/job-list.js';
import { STATE_UNAVAILABLE_TEXT } from '../../messages/job-replies.js';
import { secretRefusalText } from '../../messages/secret-notice.js';
import type { CommandArgs } from '../args.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';
import { owedVia, respondSafely } from '../respond-safely.js';
import { answerPreferenceCommand, preferenceCommand } from './preference-subcommands.js';
import { answerSettingsCommand, type ModalOpener, settingsSubcommand } from './settings-subcommands.js';

export type DocsAgentCommandDeps = Pick<
  SlackDeps,
  'access' | 'logger' | 'limits' | 'afterAck' | 'projects' | 'outbox' | 'settings'
> & {
  jobs: Pick<SlackDeps['jobs'], 'start' | 'status' | 'listWatched'>;
};

export function registerDocsAgentCommand(app: App, deps: RequestDeps<DocsAgentCommandDeps>): void {
  app.command('/docs-agent', deps.each(docsAgentCommand));
}

/**
 * `/docs-agent <instruction>`: acknowledged at once; the card, the job and its polling follow.
 * `/docs-agent list`, `/docs-agent project` and `/docs-agent status <job id>` answer ephemerally. Nothing
 * that can wait (the state store, the platform) runs before `ack()`: only answers built from the request.
 */
export function docsAgentCommand(deps: DocsAgentCommandDeps) {
  return async (args: CommandArgs & { client?: ModalOpener }): Promise<void> => {
    const { command, ack, respond } = args;
    // A credential in the text was refused before any listener (refuseSecretsInCommands); an instruction is
    // checked again by the start-job use case.
    const access = deps.access.check(command.user_id, command.channel_id);
    if (!access.ok) {
      await ack({ response_type: 'ephemeral', text: accessDeniedMessage(access.reason, access.ask) });
      return;
    }
    // `connect`, `disconnect`, `project`: the docs projects this workspace uses (OAuth mode: from Slack).
    const settings = settingsSubcommand(command.text);
    if (settings) {
      const fromEnvironment = () => projectMessage(deps.projects, command.channel_id);
      await answerSettingsCommand(settings, args, deps, fromEnvironment);
      return;
    }
    // `managers …`, `settings …`: who manages this workspace's docs-agent, and its choices (OAuth mode).
    const preference = preferenceCommand(command.text);
    if (preference) {
      await answerPreferenceCommand(preference, args, deps);
      return;
    }
    const parsed = parseDocsAgentCommand(command.text);
    if (parsed.kind === 'help') {
      await ack({
        response_type: 'ephemeral',
        ...docsAgentHelpMessage(command.command, { connectable: deps.settings !== undefined }),
      });
      return;
    }
    if (parsed.kind === 'status_usage') {
      await ack({ response_type: 'ephemeral', text: statusUsageMessage(command.command) });
      return;
    }
    if (parsed.kind === 'project') {
      // `project` with invisible characters around it: the same answer as `project`.
      await answerSettingsCommand('project', args, deps, () =>
        projectMessage(deps.projects, command.channel_id),
      );
      return;
    }
    if (parsed.kind === 'list') {
      // Read from the state store, which can be slow or away: acknowledge first, answer via response_url.
      await ack();
      let records: Awaited<ReturnType<typeof deps.jobs.listWatched>>;
      try {
        records = await deps.jobs.listWatched(command.channel_id);
      } catch (error) {
        deps.logger.warn({ error: describeError(error) }, 'could not list jobs');
        await respondSafely(
          respond,
          {
            text: "I can't reach my storage right now, so I can't list the jobs. Try again in a minute.",
          },
          deps.logger,
        );
        return;
      }
      await respondSafely(respond, jobListMessage(records, Date.now()), deps.logger, {
        owed: owedVia(deps.outbox, command.response_url),
      });
      return;
    }
    if (parsed.kind === 'status') {
      // Fetched fresh from the platform, which may be slow: acknowledge first, answer via response_url.
      await ack();
      const result = await deps.jobs.status(parsed.jobId, {
        channelId: command.channel_id,
        userId: command.user_id,
        isAdmin: deps.access.isAdmin(command.user_id),
      });
      const view = result.ok
        ? jobStatusMessage(result.job, result.record, deps.projects?.isMulti ? result.projectId : undefined)
        : jobStatusErrorMessage(parsed.jobId, result.error, Date.now(), deps.limits);
      await respondSafely(respond, view, deps.logger, { owed: owedVia(deps.outbox, command.response_url) });
      return;
    }
    if (parsed.kind === 'too_long') {
      await ack({ response_type: 'ephemeral', text: tooLongMessage(parsed.length) });
      return;
    }
    await ack();
    const start = {
      teamId: command.team_id ?? null,
      channelId: command.channel_id,
      threadTs: null,
      requesterId: command.user_id,
      prompt: parsed.prompt,
      origin: 'command',
      responseUrl: command.response_url,
    } as const;
    deps.afterAck(async () => {
      const result = await deps.jobs.start(start);
      if (!result.ok && result.stage === 'secret') {
        await respondSafely(respond, { text: secretRefusalText(result.kind) }, deps.logger);
        return;
      }
      if (!result.ok && result.stage === 'state') {
        await respondSafely(respond, { text: STATE_UNAVAILABLE_TEXT }, deps.logger);
        return;
      }
      if (!result.ok && result.stage === 'card') {
        deps.logger.info(
          { channelId: start.channelId, error: describeError(result.error) },
          'could not post job card',
        );
        await respondSafely(
          respond,
          { text: describeSlackDeliveryFailure((result.error as { code?: string }).code) },
          deps.logger,
        );
      }
    });
  };
}

/**
 * `/docs-agent project` in single-workspace mode: the channel's docs project, and whether it is the
 * channel's own or the default (both set by the environment).
 */
export function projectMessage(projects: DocsAgentCommandDeps['projects'], channelId: string): string {
  if (!projects) return 'This channel uses the docs project docs-agent was deployed with.';
  const projectId = projects.projectFor(channelId);
  const where = projects.isMapped(channelId)
    ? 'set for this channel'
    : projects.isMulti
      ? 'the default: no project is set for this channel'
      : 'the only one docs-agent uses';
  return `Jobs, follow-ups, status and reports in this channel act on docs project \`${projectId}\`, ${where}. To change it, ask a workspace admin to change docs-agent's channel projects.`;
}
