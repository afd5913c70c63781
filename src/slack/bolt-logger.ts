import { type Logger as BoltLogger, LogLevel } from '@slack/bolt';
import type { Logger } from '../common/logger.js';

const TO_PINO: Record<LogLevel, string> = {
  [LogLevel.DEBUG]: 'debug',
  [LogLevel.INFO]: 'info',
  [LogLevel.WARN]: 'warn',
  [LogLevel.ERROR]: 'error',
};

/** Routes Bolt's and the WebClient's logs through our logger, so redaction applies to them too. */
export function boltLogger(logger: Logger): BoltLogger {
  const child = logger.child({ component: 'bolt' });
  // Bolt logs debug lines on every request whatever its own level: format only what will be written.
  const at =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (...msg: unknown[]) => {
      if (child.isLevelEnabled(level))
        child[level](msg.map((m) => (typeof m === 'string' ? m : safeJson(m))).join(' '));
    };
  return {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
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
