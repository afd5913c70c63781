/**
 * Every error the bot reasons about carries a stable `code`, so callers branch on codes, never on messages,
 * and user-facing text is chosen from the code rather than leaked from internals.
 */
export class AppError<Code extends string = string> extends Error {
  readonly code: Code;

  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

export function errorCode(error: unknown): string | undefined {
  return error instanceof AppError ? error.code : undefined;
}

/** A short description safe for logs: never a stack full of request objects. */
export function describeError(error: unknown): string {
  if (error instanceof AppError) return `${error.code}: ${error.message}`;
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
