import { optionalText } from './config-schemas.js';
import { isSafeHttpUrl } from './untrusted-text.js';

/**
 * DOCS_JOB_URL_PATTERN: where the docs platform shows one agent job, e.g.
 * `https://dashboard.example.com/projects/{projectId}/jobs/{jobId}`. Cards and replies link a job's page
 * with it ("Open in dashboard"); unset, they show no such link (no dead links). One setting for every
 * tenant in OAuth mode.
 */
const PLACEHOLDERS = ['{projectId}', '{jobId}'] as const;
const PATTERN_MAX = 1000;

/** The pattern with every placeholder replaced by `fill(name)`. */
function filled(pattern: string, fill: (placeholder: (typeof PLACEHOLDERS)[number]) => string): string {
  return pattern.split('{projectId}').join(fill('{projectId}')).split('{jobId}').join(fill('{jobId}'));
}

/** What is wrong with a pattern, or undefined when it is usable. */
export function jobUrlPatternProblem(pattern: string): string | undefined {
  if (pattern.length > PATTERN_MAX) return `must be at most ${PATTERN_MAX} characters`;
  if (!pattern.startsWith('https://')) return 'must be an https:// URL';
  // Each would end or break a Slack link (`<url|label>`).
  if (/[\s<>|"`]/.test(pattern)) return 'must not contain spaces or any of < > | " `';
  if (!pattern.includes('{jobId}')) return 'must contain {jobId} (where the job id goes)';
  const rest = filled(pattern, () => '');
  if (/[{}]/.test(rest)) return 'may contain only the placeholders {projectId} and {jobId}';
  // The placeholders go in the path, query or fragment: a job id never chooses the host.
  const authority = pattern.slice('https://'.length).split(/[/?#]/, 1)[0] ?? '';
  if (authority.includes('{')) return 'must not have a placeholder in its host';
  if (!URL.canParse(filled(pattern, () => 'x')))
    return 'must be a URL such as https://dashboard.example.com/jobs/{jobId}';
  return undefined;
}

export const jobUrlPatternSchema = optionalText.superRefine((value, ctx) => {
  const problem = value === undefined ? undefined : jobUrlPatternProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/**
 * One job's page: the pattern with each placeholder's value URL-encoded; undefined without a pattern or
 * a job id, or when the result is not an https URL.
 */
export function jobPageUrl(
  pattern: string | undefined,
  ids: { projectId: string; jobId: string },
): string | undefined {
  if (!pattern || ids.jobId === '') return undefined;
  if (ids.projectId === '' && pattern.includes('{projectId}')) return undefined;
  const url = filled(pattern, (placeholder) =>
    encodeURIComponent(placeholder === '{jobId}' ? ids.jobId : ids.projectId),
  );
  return url.startsWith('https://') && isSafeHttpUrl(url) ? url : undefined;
}
