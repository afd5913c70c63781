/** Reading a Web API call as Slack receives it: form or JSON arguments, and uploaded files. */

export function parseArgs(raw: string, contentType: string | undefined): Record<string, unknown> {
  if (!raw) return {};
  if (contentType?.includes('application/json')) return JSON.parse(raw) as Record<string, unknown>;
  const args: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    // The WebClient JSON-encodes nested values (blocks, metadata) inside the form body.
    args[key] = /^[[{]/.test(value) ? safeParse(value) : value;
  }
  return args;
}

export function safeParse(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** The file's bytes from an upload: the first part of a multipart body, or the body itself. */
export function multipartFile(raw: string, contentType: string | undefined): string {
  const boundary = /boundary=([^;]+)/.exec(contentType ?? '')?.[1];
  if (!contentType?.includes('multipart/form-data') || !boundary) return raw;
  const part = raw.split(`--${boundary}`).find((p) => p.includes('\r\n\r\n')) ?? '';
  return part.slice(part.indexOf('\r\n\r\n') + 4).replace(/\r\n$/, '');
}
