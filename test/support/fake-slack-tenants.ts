/**
 * The workspaces and orgs the fake Slack installs the app in, and the codes and tokens it issues
 * (fake-slack-oauth.ts).
 */

/** Which workspace (or org, for an org-wide install) the next "Allow" installs the app in. */
export type NextInstall =
  | {
      teamId: string;
      teamName: string;
      enterpriseId?: string;
      enterpriseName?: string;
      isEnterpriseInstall?: false;
    }
  | { enterpriseId: string; enterpriseName: string; isEnterpriseInstall: true };

export interface FakeTenant {
  /** The org for an org-wide install, else the workspace. */
  key: string;
  install: NextInstall;
  botUserId: string;
  botId: string;
  scopes: string[];
  installerUserId: string;
}

/** The tenant key of an install: the org for an org-wide install, else the workspace. */
export function tenantKeyOf(install: NextInstall): string {
  return install.isEnterpriseInstall ? install.enterpriseId : install.teamId;
}

/** A token the fake issued, and whose it is. */
export interface IssuedToken {
  tenant: string;
  live: boolean;
  /** ms since the epoch (token rotation). */
  expiresAt: number | undefined;
}

/** A code the authorize page handed out, until it is exchanged. */
export interface PendingCode {
  install: NextInstall;
  scopes: string[];
  redirectUri: string | undefined;
  issuedAt: number;
  used: boolean;
}
