import type { Provenance } from '../../protocol/query-protocol.ts';
import type { ScoredPassage } from '../store/store.ts';

/**
 * What the engine produces for one question: the stream frames of
 * docs/specification.md "Stream frames" before they are put on the wire (citations still carry their
 * passage; the API layer turns them into wire citations). Both endpoints
 * consume the same events, so the JSON answer and the streamed answer to a
 * question are the same text and citations.
 */
export type AnswerEvent =
  | { type: 'citations'; citations: EngineCitation[] }
  | { type: 'token'; text: string }
  | { type: 'reset' }
  | { type: 'abstain'; answer: string }
  | { type: 'suggestions'; questions: string[] }
  | { type: 'done'; abstained: boolean; provenance: Provenance };

/** A cited passage and the `[n]` marker that refers to it. */
export interface EngineCitation {
  index: number;
  passage: ScoredPassage;
}

/** The final state of an answer, as the JSON endpoint returns it. */
export interface CollectedAnswer {
  answer: string;
  citations: EngineCitation[];
  provenance: Provenance;
  abstained: boolean;
  suggestions: string[];
}

/**
 * Folds events the way a client applies frames (docs/specification.md
 * "Stream frames"): tokens append, `reset` discards text and sources, `abstain`
 * replaces everything with its message.
 *
 * @throws Error when the events end without a `done`
 */
export async function collectAnswer(events: AsyncIterable<AnswerEvent>): Promise<CollectedAnswer> {
  let answer = '';
  let citations: EngineCitation[] = [];
  let suggestions: string[] = [];
  for await (const event of events) {
    switch (event.type) {
      case 'token':
        answer += event.text;
        break;
      case 'citations':
        citations = event.citations;
        break;
      case 'reset':
        answer = '';
        citations = [];
        break;
      case 'abstain':
        answer = event.answer;
        citations = [];
        break;
      case 'suggestions':
        suggestions = event.questions;
        break;
      case 'done':
        return { answer, citations, provenance: event.provenance, abstained: event.abstained, suggestions };
    }
  }
  throw new Error('The answer ended without a done event');
}
