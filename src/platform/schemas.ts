import { z } from 'zod';
import { cleanUntrusted, isSafeHttpUrl, MAX_READER_TEXT } from '../common/untrusted-text.js';
import type { AgentJob } from '../jobs/domain/job.js';

/**
 * Optional fields degrade to null instead of failing the whole response: the spec marks nothing required.
 * Platform text is outside text: invisible characters out, capped, before anything shows it.
 */
const lenientString = z
  .string()
  .transform((value) => cleanUntrusted(value, MAX_READER_TEXT).text)
  .nullish()
  .catch(null);

/**
 * zod's `.url()` accepts `<`, `>`, `|` and spaces (`https://github.com/a/b/pull/1 <!channel>` passes): only a
 * URL Slack cannot read markup into is kept; any other is treated as absent (the job still works).
 */
const httpUrl = z.string().refine(isSafeHttpUrl).nullish().catch(null);

export const agentJobSchema = z
  .object({
    id: z.string().trim().min(1),
    status: z
      .string()
      .transform((value) => cleanUntrusted(value, 200).text.trim())
      .pipe(z.string().min(1)),
    source: z.object({ repository: lenientString, ref: lenientString }).nullish().catch(null),
    model: lenientString,
    prLink: httpUrl,
    createdAt: lenientString,
    archivedAt: lenientString,
  })
  .transform(
    (raw): AgentJob => ({
      id: raw.id,
      status: raw.status.toLowerCase(),
      repository: raw.source?.repository ?? null,
      ref: raw.source?.ref ?? null,
      model: raw.model ?? null,
      prLink: raw.prLink ?? null,
      createdAt: raw.createdAt ?? null,
      archivedAt: raw.archivedAt ?? null,
    }),
  );

export const errorBodySchema = z
  .object({
    error: z.string().optional(),
    message: z.string().optional(),
    details: z.array(z.object({ message: z.string() }).passthrough()).optional(),
  })
  .passthrough();

/** The analytics spec types counts as `number`: any finite number is valid (display rounds them). */
const count = z.number().finite();

export const viewsTotalsSchema = z.object({ human: count, ai: count, total: count });

/**
 * A page path is data the CSV export must carry whole (and the key rows are merged by), not reader text to
 * render: capped far above any URL a web server or CDN accepts (8–16 KB), still bounded before processing.
 * Whatever shows a path caps it again for display (the report's 150-character labels).
 */
export const MAX_PAGE_PATH = 16_384;

export const pageViewsSchema = z.object({
  totals: viewsTotalsSchema,
  views: z.array(
    z.object({
      path: z.string().transform((value) => cleanUntrusted(value, MAX_PAGE_PATH).text),
      human: count,
      ai: count,
      total: count,
    }),
  ),
  hasMore: z.boolean(),
});

export type PageViewsTotals = z.infer<typeof viewsTotalsSchema>;
export type PageViewsPage = z.infer<typeof pageViewsSchema>;
