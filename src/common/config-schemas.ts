import { z } from 'zod';

/** Building blocks of the environment schema (config.ts): each value arrives as an optional string. */

export const optionalText = z
  .string()
  .trim()
  .transform((value) => (value === '' ? undefined : value))
  .optional();

/** `true` or `false`; empty or unset: `fallback`. */
export const flag = (fallback: boolean) =>
  optionalText
    .pipe(z.enum(['true', 'false'], { error: 'must be true or false' }).optional())
    .transform((value) => (value === undefined ? fallback : value === 'true'));

export const idList = (what: string) =>
  z
    .string()
    .optional()
    .transform((value) =>
      (value ?? '')
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== ''),
    )
    .pipe(
      z.array(
        z
          .string()
          .regex(
            /^[A-Z0-9]+$/,
            `each entry must be a Slack ${what} ID such as ${what === 'user' ? 'U0123ABCD' : 'C0123ABCD'}`,
          ),
      ),
    );

export const integer = (fallback: number, min: number, max = Number.MAX_SAFE_INTEGER) =>
  z
    .string()
    .trim()
    .optional()
    .transform((value) => (value === undefined || value === '' ? String(fallback) : value))
    .pipe(
      z
        .string()
        .regex(/^-?\d+$/, 'must be a whole number')
        .transform(Number)
        .pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`)),
    );

export const httpUrl = z
  .string()
  .trim()
  .url('must be a URL such as https://example.com')
  .refine((value) => /^https?:\/\//.test(value), 'must start with http:// or https://');

/** localhost, 127.0.0.0/8 and [::1]: a local proxy or a test's fake, where plain http cannot leak anything. */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(hostname);
}

/** An API base the bot sends its tokens or keys to: https, or http on loopback only. */
export const apiUrl = httpUrl.refine((value) => {
  const url = new URL(value);
  return url.protocol === 'https:' || isLoopbackHost(url.hostname);
}, 'must use https:// (plain http:// only on localhost/127.0.0.1, where nothing crosses a network)');

export const redisUrl = z
  .string()
  .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
  .refine(
    URL.canParse,
    'must be a URL such as redis://:password@host:6379 (percent-encode a password with @ / : #)',
  );
