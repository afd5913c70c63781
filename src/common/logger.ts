import { createRequire } from 'node:module';
import { Writable } from 'node:stream';
import { type DestinationStream, type Logger, pino } from 'pino';
import type PinoPretty from 'pino-pretty';
import { SecretIndex, scrubShapes } from './secret-scrubber.js';

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
 * Secrets learned while running (OAuth mode: each installation's tokens, each connected project's key),
 * held per owner (a tenant): `set` replaces an owner's secrets (a rotated token drops the old one), `drop`
 * forgets them (uninstall). The deployment's own are never dropped. Every logger built on the set scrubs
 * them from the moment they are added, plus every token and key shape, at a cost that does not grow with
 * the number of secrets.
 */
export class SecretSet {
  private readonly index = new SecretIndex();
  private readonly owned = new Map<string, ReadonlySet<string>>();
  private readonly own = new Set<string>();

  constructor(initial: readonly string[] = []) {
    this.add(...initial);
  }

  /** The deployment's own secrets (kept for the process's life). */
  add(...secrets: readonly (string | undefined)[]): void {
    for (const secret of secrets) {
      if (!secret || this.own.has(secret)) continue;
      this.own.add(secret);
      this.index.add(secret);
    }
  }

  /** An owner's secrets now: new ones are scrubbed from now on, ones it no longer holds are forgotten. */
  set(owner: string, secrets: readonly (string | undefined)[]): void {
    const next = new Set(secrets.filter((s): s is string => Boolean(s)));
    const before = this.owned.get(owner) ?? new Set<string>();
    for (const secret of next) if (!before.has(secret)) this.index.add(secret);
    for (const secret of before) if (!next.has(secret)) this.index.remove(secret);
    if (next.size > 0) this.owned.set(owner, next);
    else this.owned.delete(owner);
  }

  drop(owner: string): void {
    this.set(owner, []);
  }

  /** How many owners hold secrets here (tests, metrics). */
  owners(): number {
    return this.owned.size;
  }

  scrub(line: string): string {
    return scrubShapes(this.index.scrub(line));
  }
}

export interface LoggerOptions {
  level: string;
  secrets: readonly string[] | SecretSet;
  /** Where lines go; stdout by default. Tests pass a collector. */
  destination?: { write(line: string): unknown };
  /** Human-readable lines (pino-pretty, a dev dependency); by default as `wantsPretty` decides. */
  pretty?: boolean;
}

/**
 * Pretty lines only where a person reads them and never in production: LOG_PRETTY=true (or 1) asks for them,
 * LOG_PRETTY=false refuses them, otherwise a terminal outside NODE_ENV=production gets them.
 */
export function wantsPretty(env: NodeJS.ProcessEnv, isTTY: boolean): boolean {
  const asked = env.LOG_PRETTY?.trim().toLowerCase();
  if (asked === 'true' || asked === '1') return true;
  if (asked === 'false' || asked === '0') return false;
  return isTTY && env.NODE_ENV !== 'production';
}

/**
 * pino-pretty, loaded only when pretty lines are wanted, and only if installed: a production install
 * (`npm ci --omit=dev`) has none, and then the lines stay JSON.
 */
function loadPretty(): typeof PinoPretty | undefined {
  try {
    return createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
  } catch {
    return undefined;
  }
}

export function createLogger(options: LoggerOptions): Logger {
  const target = options.destination ?? process.stdout;
  const secrets = options.secrets instanceof SecretSet ? options.secrets : new SecretSet(options.secrets);
  const scrubbing: DestinationStream = {
    write(line: string) {
      target.write(secrets.scrub(line));
    },
  };
  const usePretty =
    options.pretty ??
    (options.destination === undefined && wantsPretty(process.env, process.stdout.isTTY === true));
  const pretty = usePretty ? loadPretty() : undefined;
  const stream = pretty
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
