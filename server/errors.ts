import type { StreamErrorCode } from '../protocol/query-protocol.ts';

/**
 * The server's error classes, on the ground floor so that every layer may
 * throw or recognise them; each is turned into a response in one place
 * (http/problem.ts `problemHandler`, and a stream's terminal `error` frame
 * in api/query-routes.ts).
 *
 * The store's errors, thrown alike by both backends: the database cannot be
 * reached ({@link StoreUnavailableError}, retryable), or a record rule was
 * broken ({@link NotFoundError}, {@link ConflictError}). The store knows
 * nothing of HTTP; the layers above decide what each means to a caller.
 * The engine's: the chat model failed ({@link GenerationError}).
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

/**
 * Generating an answer with the chat model failed (docs/specification.md "Stream
 * frames", `error` codes). `code` is the stream `error` frame's code:
 * - `upstream_unavailable`: the model server could not be reached, answered
 *   with an HTTP error status, or failed before sending any text;
 * - `generation_failed`: the model's stream broke after some text arrived;
 * - `timeout`: no complete answer within the configured time.
 *
 * The message is for the operator's log (it names the server and the
 * status); it is not meant for the asker.
 */
export class GenerationError extends Error {
  override name = 'GenerationError';
  readonly code: Exclude<StreamErrorCode, 'internal'>;

  constructor(code: Exclude<StreamErrorCode, 'internal'>, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}
