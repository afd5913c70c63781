import { Writable } from 'node:stream';
import { type DestinationStream, type Logger, pino } from 'pino';
import pretty from 'pino-pretty';

export type { Logger } from 'pino';

const REDACT_PATHS = [
  'token',
  'apiKey',
  'authorization',
  'Authorization',
  '*.token',
  '*.apiKey',
  '*.authorization',
  '*.Authorization',
  'headers.authorization',
  'headers.Authorization',
  '*.headers.authorization',
];

/**
 * Every form a secret takes in a log line: as is, JSON-escaped once (a pino string field) and twice (JSON
 * inside a string field, e.g. an error body), and percent-encoded (inside a URL). Longest first, so a secret
 * containing another one goes whole. Short secrets are kept too: over-redacting a short word beats leaking it.
 */
export function secretForms(secrets: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret === '') continue;
    const once = JSON.stringify(secret).slice(1, -1);
    forms.add(secret);
    forms.add(once);
    forms.add(JSON.stringify(once).slice(1, -1));
    forms.add(encodeURIComponent(secret));
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

/** Replaces every occurrence of a known secret, wherever it hides in a log line (messages, causes, URLs). */
export function scrubSecrets(line: string, secrets: readonly string[]): string {
  let out = line;
  for (const secret of secrets) {
    if (secret !== '' && out.includes(secret)) out = out.replaceAll(secret, '[redacted]');
  }
  return out;
}

/**
 * Secrets learned while running (OAuth mode: each installation's tokens, each connected project's key):
 * every logger built on the set scrubs them from the moment they are added.
 */
export class SecretSet {
  private readonly values = new Set<string>();
  private cached: string[] | undefined;

  constructor(initial: readonly string[] = []) {
    this.add(...initial);
  }

  add(...secrets: readonly (string | undefined)[]): void {
    for (const secret of secrets) {
      if (!secret || this.values.has(secret)) continue;
      this.values.add(secret);
      this.cached = undefined;
    }
  }

  forms(): string[] {
    this.cached ??= secretForms([...this.values]);
    return this.cached;
  }
}

export interface LoggerOptions {
  level: string;
  secrets: readonly string[] | SecretSet;
  /** Where lines go; stdout by default. Tests pass a collector. */
  destination?: { write(line: string): unknown };
  pretty?: boolean;
}

export function createLogger(options: LoggerOptions): Logger {
  const target = options.destination ?? process.stdout;
  const secrets = options.secrets instanceof SecretSet ? options.secrets : new SecretSet(options.secrets);
  const scrubbing: DestinationStream = {
    write(line: string) {
      target.write(scrubSecrets(line, secrets.forms()));
    },
  };
  const usePretty = options.pretty ?? (options.destination === undefined && process.stdout.isTTY === true);
  const stream = usePretty
    ? pretty({
        colorize: true,
        translateTime: 'SYS:HH:MM:ss.l',
        ignore: 'pid,hostname',
        destination: new Writable({
          write(chunk, _encoding, callback) {
            scrubbing.write(String(chunk));
            callback();
          },
        }),
      })
    : scrubbing;
  return pino(
    {
      level: options.level,
      base: { service: 'docs-agent' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      serializers: { err: pino.stdSerializers.err },
    },
    stream,
  );
}
