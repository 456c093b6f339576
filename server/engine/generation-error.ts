import type { StreamErrorCode } from '../../protocol/query-protocol.ts';

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
