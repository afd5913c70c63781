import { z } from 'zod';
import { capCodePoints, MAX_READER_TEXT } from '../common/untrusted-text.js';

/**
 * The four analytics endpoints behind `/docs-health` (analytics.openapi.json). Tolerant as `schemas.ts`:
 * counts are any finite number, fields we only display degrade to null, and a body is rejected only when a
 * row lacks what identifies it (query, path, id) or a count we rank by.
 */
const count = z.number().finite();
const lenientString = z.string().nullish().catch(null);
/**
 * Text a docs reader typed (query, path, comment, question): capped at the schema's 2,000 characters before
 * anything else touches it, so no later step ever sees a 40,000-character string.
 */
const readerText = z.string().transform((value) => capCodePoints(value, MAX_READER_TEXT));
const lenientReaderText = readerText.nullish().catch(null);
/** `null` means "no more pages", as does a missing or malformed cursor: paging stops rather than loops. */
const cursor = z.string().min(1).nullish().catch(null);

export const searchesPageSchema = z.object({
  searches: z.array(
    z.object({
      searchQuery: readerText,
      hits: count,
      ctr: count,
      // The spec requires the key but a missing one means the same to us: nothing was clicked.
      topClickedPage: lenientString,
      lastSearchedAt: lenientString,
    }),
  ),
  totalSearches: count,
  nextCursor: cursor,
});

export const feedbackByPageSchema = z.object({
  feedback: z.array(
    z.object({
      path: readerText,
      thumbsUp: count,
      thumbsDown: count,
      code: count.optional().catch(undefined),
      total: count.optional().catch(undefined),
    }),
  ),
  hasMore: z.boolean(),
});

/** Feedback entries without `contact`: a reader's e-mail address has no business in a Slack report. */
export const feedbackPageSchema = z.object({
  feedback: z.array(
    z.object({
      id: z.string(),
      path: readerText,
      comment: lenientReaderText,
      createdAt: lenientString,
      source: lenientString,
      status: lenientString,
      helpful: z.boolean().nullish().catch(null),
    }),
  ),
  nextCursor: cursor,
  hasMore: z.boolean().optional().catch(undefined),
});

export const assistantPageSchema = z.object({
  conversations: z.array(
    z.object({
      id: z.string(),
      timestamp: lenientString,
      query: readerText,
      resolutionStatus: lenientString,
      responseType: lenientString,
      pageUrl: lenientString,
    }),
  ),
  nextCursor: cursor,
  hasMore: z.boolean().optional().catch(undefined),
});

export type SearchesPage = z.infer<typeof searchesPageSchema>;
export type SearchRow = SearchesPage['searches'][number];
export type FeedbackByPage = z.infer<typeof feedbackByPageSchema>;
export type PageFeedbackRow = FeedbackByPage['feedback'][number];
export type FeedbackPage = z.infer<typeof feedbackPageSchema>;
export type FeedbackEntry = FeedbackPage['feedback'][number];
export type AssistantPage = z.infer<typeof assistantPageSchema>;
export type AssistantConversation = AssistantPage['conversations'][number];
