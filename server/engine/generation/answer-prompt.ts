import type { ChatMessage } from './chat-completions-client.ts';
import type { ScoredPassage } from '../../store/store.ts';

/**
 * The prompt of the generated answer (docs/design-decisions.md "The engine"): two messages.
 *
 * System message ({@link SYSTEM_PROMPT}): answer only from the numbered
 * passages, cite every claim with `[n]` markers that match the passage
 * numbers, keep it short, and reply exactly {@link NO_ANSWER} when the
 * passages do not answer the question.
 *
 * User message: the retrieved passages, best BM25 first, numbered from 1,
 * each as a `[n] Heading > Path` line followed by the passage text, then the
 * question:
 *
 * ```text
 * Passages:
 *
 * [1] Guide > Creating directories
 * Use `mkdir` with the `recursive` option ...
 *
 * [2] Guide > Reading files
 * Call `readFile` with a path ...
 *
 * Question: How do I create nested directories?
 * ```
 *
 * Every passage sent lies inside the asker's reach, so the model can reveal
 * nothing the asker could not read; whatever it writes is still checked by
 * engine/generation/grounding-check.ts before it is accepted.
 */

/** The model's whole reply when the passages do not answer the question. */
export const NO_ANSWER = 'NO_ANSWER';

export const SYSTEM_PROMPT = [
  'You answer questions about a knowledge base using only the numbered passages in the user message.',
  'Rules:',
  '- Use only what the passages say. Do not add facts from anywhere else.',
  '- Cite every sentence with the number of the passage it comes from in square brackets, such as [1] or [2][3], placed before the sentence\'s final punctuation. Use only the numbers of the passages given.',
  '- Keep the answer short: at most three sentences, in plain language, with `backticks` around code.',
  `- If the passages do not answer the question, reply exactly ${NO_ANSWER} and nothing else.`,
].join('\n');

/**
 * @param question the asker's question
 * @param passages the retrieved passages, best first; passage `i` (0-based) is numbered `i + 1`
 * @returns the system and user messages
 */
export function buildAnswerPrompt(question: string, passages: readonly ScoredPassage[]): ChatMessage[] {
  const numbered = passages.map(
    (passage, position) => `[${position + 1}] ${passage.headingPath.join(' > ')}\n${passage.text.trim()}`,
  );
  return [
    { role: 'system', content: SYSTEM_PROMPT },
    { role: 'user', content: `Passages:\n\n${numbered.join('\n\n')}\n\nQuestion: ${question.trim()}` },
  ];
}
