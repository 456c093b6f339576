import { QueryRequestSchema } from '../../protocol/query-schemas.ts';
import { MAX_QUESTION_CHARACTERS, MAX_TOP_K } from '../../protocol/query-terms.ts';
import { MAX_JSON_BODY_BYTES } from '../http/body-guards.ts';
import { problem } from '../http/problem.ts';

/**
 * Validation of the query request body, the same for both endpoints
 * (docs/specification.md "Query request": `question` 1..2000 characters
 * after trimming, `top_k` an integer 1..20, `options` an object,
 * `conversation_id` a string, unknown top-level fields ignored).
 */

export { MAX_QUESTION_CHARACTERS, MAX_TOP_K };
/** Largest request body, in bytes (16 KiB). */
export const MAX_BODY_BYTES = MAX_JSON_BODY_BYTES;

/** A validated query. */
export interface ValidQuery {
  question: string;
  topK: number | undefined;
}

/**
 * @param body the parsed JSON body (any value)
 * @returns the question (trimmed) and top-k
 * @throws a 400 `invalid_request` problem saying which field was wrong
 */
export function parseQueryBody(body: unknown): ValidQuery {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw problem(400, 'invalid_request', 'The request body must be a JSON object with a "question" field');
  }
  if (!('question' in body) && 'query' in body) {
    throw problem(400, 'invalid_request', 'The field is named "question", not "query"');
  }
  if (!('question' in body)) {
    throw problem(400, 'invalid_request', 'Field "question" is required');
  }
  const parsed = QueryRequestSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = String(issue?.path[0] ?? 'body');
    const shown = field === 'question' ? '' : shownValue((body as Record<string, unknown>)[field]);
    throw problem(400, 'invalid_request', `${issue?.message ?? 'The request body is invalid'}${shown}`);
  }
  return { question: parsed.data.question, topK: parsed.data.top_k };
}

/**
 * A wrong value as a refusal's detail ends with it: `, got <JSON>`, cut to
 * 40 characters; nothing for a missing value. (The visitor's own text, a
 * question or a comment, is never echoed.)
 */
export function shownValue(value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined) return '';
  return `, got ${json.length > 40 ? `${json.slice(0, 40)}…` : json}`;
}
