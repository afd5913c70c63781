import { describeError } from '../../common/errors.js';
import { createTenantSlackApp, type TenantSlackApp } from '../../slack/tenant-slack-app.js';
import type { ProjectConnection, TenantKey } from '../../tenants/tenant.js';
import { createDocsAgent } from '../app.js';
import type { DocsAgent, TenantScope } from '../docs-agent.js';
import { TenantProjects, tenantConfig, tenantNamespace } from './tenant-config.js';
import type { TenantRuntimesDeps } from './tenant-runtimes.js';

export interface TenantRuntime {
  scope: TenantScope;
  stamp: string;
  projects: TenantProjects;
  slack: TenantSlackApp;
  agent: DocsAgent;
  /** False from the moment it is uninstalled: its Slack client refuses every call. */
  installed: boolean;
}

/**
 * One tenant's runtime: the single-workspace composition with the tenant's config, key space, metrics,
 * projects and Slack app (every call with the installation's current token, none once uninstalled); started
 * in the background.
 */
export function buildTenantRuntime(
  deps: Pick<TenantRuntimesDeps, 'config' | 'directory' | 'clock' | 'logger' | 'metrics'>,
  what: {
    tenant: TenantKey;
    stamp: string;
    installation: TenantScope['installation'];
    settings: TenantScope['settings'];
    connections: ProjectConnection[];
  },
  on: { changed(): void; fatal(reason: string): void },
): TenantRuntime {
  const { config, directory, clock } = deps;
  const { tenant, installation, connections } = what;
  const logger = deps.logger.child({ tenant });
  const scope: TenantScope = {
    key: tenant,
    directory,
    installation,
    settings: what.settings,
    changed: on.changed,
  };
  const projects = new TenantProjects(connections);
  const runtimeConfig = tenantConfig(config, tenant, installation, connections);
  const namespace = tenantNamespace(tenant, config.oauth?.upgradedTenant);
  const holder: { runtime?: TenantRuntime; slack?: TenantSlackApp } = {};
  const agent = createDocsAgent(runtimeConfig, {
    logger,
    clock,
    tenant: scope,
    projects,
    metrics: deps.metrics.forTenant(tenant),
    ...(namespace ? { namespace } : {}),
    slackApp: (options) => {
      holder.slack = createTenantSlackApp(
        runtimeConfig,
        logger,
        () => (holder.runtime?.installed === false ? undefined : scope.installation),
        options,
      );
      return holder.slack;
    },
  });
  const runtime: TenantRuntime = {
    scope,
    stamp: what.stamp,
    projects,
    slack: holder.slack!,
    agent,
    installed: true,
  };
  holder.runtime = runtime;
  agent.onFatal(on.fatal);
  agent.start().catch((error: unknown) => {
    logger.error({ error: describeError(error) }, `tenant ${tenant} could not start`);
  });
  return runtime;
}
