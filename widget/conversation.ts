import type { Citation, Provenance, StreamFrame } from '../protocol/query-protocol.ts';

/**
 * The state of one question and its answer in the widget, and how stream
 * frames change it (docs/specification.md "Stream frames"): `token` appends,
 * `citations` sets the sources, `reset` discards what was shown and keeps
 * listening, `abstain` replaces everything, `suggestions` offers follow-ups,
 * `done` completes, `error` keeps what arrived and adds a notice. DOM-free:
 * the element renders a list of turns.
 */

/** Where a turn stands. */
export type TurnStatus =
  /** Frames are arriving (or the request is on its way). */
  | 'streaming'
  /** `done` arrived with an answer. */
  | 'answered'
  /** The service declined to answer (`abstain`, or `done` with `abstained`). */
  | 'abstained'
  /** Something stopped the answer: a refusal, an `error` frame, a broken stream, the network. */
  | 'failed'
  /** The visitor pressed Stop. */
  | 'stopped';

/** Why a turn failed, for the words shown to the visitor. */
export type FailureReason =
  | 'expired'
  | 'revoked'
  | 'not-allowed'
  | 'rate-limited'
  | 'offline'
  | 'interrupted'
  /** Nothing came from the service, not even a heartbeat, for the element's `stallTimeout`. */
  | 'stalled'
  | 'generation-failed'
  | 'unavailable'
  | 'misconfigured'
  | 'rejected';

export interface Turn {
  /** Increasing number, unique within one element. */
  id: number;
  question: string;
  status: TurnStatus;
  /** The answer's markdown so far (or the abstention message). */
  text: string;
  citations: Citation[];
  suggestions: string[];
  /**
   * Why it failed; after a refusal with `Retry-After`, its seconds and
   * `retryAt`, the time (epoch milliseconds) from which a retry may succeed.
   */
  failure?: { reason: FailureReason; retryAfterSeconds?: number; retryAt?: number };
  /** How the answer was produced, from its `done` frame (a service that does not send it: absent). */
  provenance?: Provenance;
  /** The visitor's rating of the answer, once it was sent (it is sent once). */
  rated?: 'up' | 'down';
}

/**
 * The provenance to send back with feedback on a finished turn: as its
 * `done` frame said, else `abstained` or `generated` by its status.
 */
export function provenanceOf(turn: Turn): Provenance {
  return turn.provenance ?? (turn.status === 'abstained' ? 'abstained' : 'generated');
}

/** @returns a new turn waiting for its first frame */
export function startTurn(id: number, question: string): Turn {
  return { id, question, status: 'streaming', text: '', citations: [], suggestions: [] };
}

/**
 * Applies one frame. Frames after the turn has ended are ignored.
 *
 * @returns the updated turn (a new object; the input is not changed)
 */
export function applyFrame(turn: Turn, frame: StreamFrame): Turn {
  if (turn.status !== 'streaming') return turn;
  switch (frame.type) {
    case 'token':
      return { ...turn, text: turn.text + frame.text };
    case 'citations':
      return { ...turn, citations: frame.citations };
    case 'reset':
      return { ...turn, text: '', citations: [] };
    case 'abstain':
      return { ...turn, text: frame.answer, citations: [] };
    case 'suggestions':
      return { ...turn, suggestions: frame.questions };
    case 'done':
      return { ...turn, status: frame.abstained ? 'abstained' : 'answered', ...(frame.provenance ? { provenance: frame.provenance } : {}) };
    case 'error':
      return { ...turn, status: 'failed', failure: { reason: 'generation-failed' } };
  }
}

/**
 * Ends a turn that failed before or while streaming, keeping what arrived.
 *
 * @param retryAfterSeconds the refusal's `Retry-After`, when it had one
 * @param now epoch milliseconds, to compute `retryAt`
 */
export function failTurn(turn: Turn, reason: FailureReason, retryAfterSeconds?: number, now = Date.now()): Turn {
  if (turn.status !== 'streaming') return turn;
  const failure = retryAfterSeconds === undefined ? { reason } : { reason, retryAfterSeconds, retryAt: now + retryAfterSeconds * 1000 };
  return { ...turn, status: 'failed', failure };
}

/** Ends a turn the visitor stopped, keeping what arrived. */
export function stopTurn(turn: Turn): Turn {
  return turn.status === 'streaming' ? { ...turn, status: 'stopped' } : turn;
}

/**
 * The failure reason of a refused request (docs/specification.md "Refused requests").
 *
 * @param code the problem `code` of the refusal
 */
export function refusalReason(code: string, status: number): FailureReason {
  switch (code) {
    case 'token_expired':
      return 'expired';
    case 'token_revoked':
      return 'revoked';
    case 'origin_not_allowed':
      return 'not-allowed';
    case 'rate_limited':
      return 'rate-limited';
    case 'missing_token':
    case 'invalid_token':
    case 'kb_mismatch':
      return 'misconfigured';
    default:
      return status >= 500 ? 'unavailable' : 'rejected';
  }
}
