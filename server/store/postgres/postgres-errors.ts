import { ConflictError, NotFoundError, StoreUnavailableError } from '../../errors.ts';

/**
 * SQLSTATE classes and codes meaning "the database cannot serve us now; try
 * again later" (https://www.postgresql.org/docs/15/errcodes-appendix.html):
 * class 08 (connection exception), 57P01 admin_shutdown, 57P02
 * crash_shutdown, 57P03 cannot_connect_now, 53300 too_many_connections,
 * 57014 query_canceled (our `statement_timeout` fired: an overloaded
 * database), 40001 serialization_failure and 40P01 deadlock_detected
 * (retrying the transaction succeeds).
 */
const UNAVAILABLE_CODES = new Set(['57P01', '57P02', '57P03', '53300', '57014', '40001', '40P01']);

/** Socket-level failures of the driver (no SQLSTATE). */
const UNAVAILABLE_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** Messages node-postgres uses for a lost, unobtainable or silent connection (`query_timeout`: "Query read timeout"). */
const UNAVAILABLE_MESSAGE =
  /connection terminated|terminating connection|timeout exceeded when trying to connect|connection timeout|query read timeout|not queryable|cannot use a pool after calling end|the database system is (starting up|shutting down)|connect ECONNREFUSED/i;

/**
 * Turns a node-postgres failure into the store's error vocabulary:
 * {@link ConflictError} for a unique violation (23505),
 * {@link StoreUnavailableError} when the database cannot be reached, was shut
 * down or dropped the connection (see the codes above), anything else
 * unchanged (a foreign-key violation, a bug). Store errors pass through.
 */
export function translatePostgresError(error: unknown): Error {
  if (!(error instanceof Error)) return new Error(String(error));
  if (error instanceof NotFoundError || error instanceof ConflictError || error instanceof StoreUnavailableError) {
    return error;
  }
  const code = (error as { code?: unknown }).code;
  if (code === '23505') return new ConflictError(error.message, { cause: error });
  if (isUnavailable(error)) {
    return new StoreUnavailableError(`The database cannot be reached: ${error.message || describeCode(code)}`, { cause: error });
  }
  return error;
}

function isUnavailable(error: Error): boolean {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (code.startsWith('08') || UNAVAILABLE_CODES.has(code) || UNAVAILABLE_SOCKET_CODES.has(code)) return true;
  }
  if (UNAVAILABLE_MESSAGE.test(error.message)) return true;
  // Node's happy-eyeballs connect reports every refused address in an AggregateError.
  if (error instanceof AggregateError) return error.errors.some((inner) => inner instanceof Error && isUnavailable(inner));
  return false;
}

function describeCode(code: unknown): string {
  return typeof code === 'string' ? code : 'connection failed';
}
