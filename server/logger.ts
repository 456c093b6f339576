import { pino, type Logger } from 'pino';

/**
 * The server's structured logger (pino, JSON lines on stdout).
 *
 * @param level pino level; `silent` for tests
 */
export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'kb-widget' } });
}
