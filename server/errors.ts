/**
 * The store's errors, thrown alike by both backends: the database cannot be
 * reached ({@link StoreUnavailableError}, retryable), or a record rule was
 * broken ({@link NotFoundError}, {@link ConflictError}). The store knows
 * nothing of HTTP; the layers above decide what each means to a caller.
 */

/** The database cannot be reached or is closed: a retryable condition. */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
}

/** A record the operation needs does not exist. */
export class NotFoundError extends Error {
  override name = 'NotFoundError';
}

/** The operation would break a uniqueness rule (e.g. a second user with one email). */
export class ConflictError extends Error {
  override name = 'ConflictError';
}
