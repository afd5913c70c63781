import { type Logger as BoltLogger, LogLevel } from '@slack/bolt';
import type { Logger } from '../logger.js';

const TO_PINO: Record<LogLevel, string> = {
  [LogLevel.DEBUG]: 'debug',
  [LogLevel.INFO]: 'info',
  [LogLevel.WARN]: 'warn',
  [LogLevel.ERROR]: 'error',
};

/** Routes Bolt's and the WebClient's logs through our logger, so redaction applies to them too. */
export function boltLogger(logger: Logger): BoltLogger {
  const child = logger.child({ component: 'bolt' });
  const join = (msg: unknown[]) => msg.map((m) => (typeof m === 'string' ? m : safeJson(m))).join(' ');
  return {
    debug: (...msg) => child.debug(join(msg)),
    info: (...msg) => child.info(join(msg)),
    warn: (...msg) => child.warn(join(msg)),
    error: (...msg) => child.error(join(msg)),
    setLevel: () => undefined,
    getLevel: () => {
      const level = child.level;
      if (level === 'debug' || level === 'trace') return LogLevel.DEBUG;
      if (level === 'info') return LogLevel.INFO;
      if (level === 'warn') return LogLevel.WARN;
      return LogLevel.ERROR;
    },
    setName: () => undefined,
  };
}

/** Bolt's own level, so it does not format debug lines nobody reads. */
export function boltLevel(level: string): LogLevel {
  return (
    (Object.entries(TO_PINO).find(([, pino]) => pino === level)?.[0] as LogLevel | undefined) ??
    LogLevel.ERROR
  );
}

function safeJson(value: unknown): string {
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}
