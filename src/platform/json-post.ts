import { request } from 'undici';

/** What a caller may read of the answer's body (Slack's error code on a 4xx); the rest is discarded. */
const KEPT_BODY_CHARS = 1_000;

/**
 * One POST of a JSON text to a URL off the docs platform (Slack's response_url), on the process's global
 * dispatcher, as `fetch` used it. Not `fetch`: its Request, Response, Headers and body streams cost about
 * twice the CPU of undici's `request` per call and feed the garbage collector, and §1's owed answers post
 * ~500 at once (issue 43). No redirect is followed. Resolves the HTTP status and the body's start (the
 * body is read to the end, so the socket is reused); rejects when no status came (`signal`, a reset).
 */
export async function postJsonText(
  url: string,
  json: string,
  signal: AbortSignal,
): Promise<{ status: number; body: string }> {
  const response = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: json,
    signal,
  });
  let body = '';
  try {
    response.body.setEncoding('utf8');
    for await (const chunk of response.body as AsyncIterable<string>)
      if (body.length < KEPT_BODY_CHARS) body += chunk.slice(0, KEPT_BODY_CHARS - body.length);
  } catch {
    // The status came: it stands, whatever became of the body.
  }
  return { status: response.statusCode, body };
}
