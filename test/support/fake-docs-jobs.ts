/** The fake docs platform's agent jobs: a job as it keeps it, and the rules of creating and messaging one. */

export interface FakeJob {
  id: string;
  status: 'active' | 'completed' | 'archived' | 'failed';
  source: { repository: string; ref: string | null };
  model: string;
  prLink: string | null;
  createdAt: string;
  archivedAt: string | null;
  prompts: string[];
  /** The project the job belongs to (not part of the API's answer). */
  project: string;
}

/** A new active job, as the platform creates it. */
export function newFakeJob(id: string, prompt: string, project: string): FakeJob {
  return {
    id,
    status: 'active',
    source: { repository: 'https://github.com/acme/docs', ref: null },
    model: 'claude-sonnet-4-5',
    prLink: null,
    createdAt: new Date().toISOString(),
    archivedAt: null,
    prompts: [prompt],
    project,
  };
}

/** The job as the API answers it (without what only the fake keeps). */
export function publicJob(job: FakeJob): Omit<FakeJob, 'prompts' | 'project'> {
  const { prompts: _prompts, project: _project, ...rest } = job;
  return structuredClone(rest);
}

/** A request body's `prompt`, when it is a non-empty string as the spec requires. */
export function promptOf(body: unknown): string | undefined {
  const prompt = (body as { prompt?: unknown } | undefined)?.prompt;
  return typeof prompt === 'string' && prompt.length >= 1 ? prompt : undefined;
}

/** One creation or follow-up in `project`'s rolling hour, if fewer than `perHour` were made in it. */
export function takeHourlySlot(byProject: Map<string, number[]>, project: string, perHour: number): boolean {
  const now = Date.now();
  const creations = byProject.get(project) ?? [];
  byProject.set(project, creations);
  while (creations.length > 0 && creations[0]! <= now - 3_600_000) creations.shift();
  if (creations.length >= perHour) return false;
  creations.push(now);
  return true;
}
