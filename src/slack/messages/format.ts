import { escapeMrkdwn } from '../markup.js';

/** "45s", "3m 12s", "1h 04m": how long a job has run. */
export function formatDuration(ms: number): string {
  const totalSeconds = Math.max(0, Math.round(ms / 1000));
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  if (hours > 0) return `${hours}h ${String(minutes).padStart(2, '0')}m`;
  if (minutes > 0) return `${minutes}m ${String(seconds).padStart(2, '0')}s`;
  return `${seconds}s`;
}

/** A time each reader sees in their own time zone, with a UTC fallback for clients that cannot. */
export function slackTime(
  epochMs: number,
  token: '{time}' | '{date_short_pretty} at {time}' | '{ago}' = '{time}',
): string {
  const seconds = Math.floor(epochMs / 1000);
  const fallback = `${new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return `<!date^${seconds}^${token}|${fallback}>`;
}

/** A link whose label is escaped; only http(s) URLs become links, anything else is shown as text. */
export function mrkdwnLink(url: string, label: string): string {
  const safeLabel = escapeMrkdwn(label).replace(/\|/g, '¦');
  if (!/^https?:\/\/[^\s<>|]+$/i.test(url)) return safeLabel;
  return `<${url}|${safeLabel}>`;
}

/** `https://github.com/acme/docs` → `acme/docs`; anything else unchanged. */
export function repositoryLabel(repository: string): string {
  const match = /^https?:\/\/[^/]+\/([^/]+\/[^/#?]+?)(?:\.git)?\/?$/i.exec(repository);
  return match?.[1] ?? repository;
}

export function repositoryBranchUrl(repository: string, ref: string): string | undefined {
  if (!/^https:\/\/github\.com\/[^/]+\/[^/]+\/?$/i.test(repository)) return undefined;
  return `${repository.replace(/\/+$/, '').replace(/\.git$/, '')}/tree/${ref.split('/').map(encodeURIComponent).join('/')}`;
}
