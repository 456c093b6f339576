import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { CitationMarkerError, withCitationMarkers } from './curated-answer-text.ts';
import type { FaqPair } from '../store/store.ts';

/**
 * The curated question/answer file of `kb faq import` (docs/ingestion.md
 * "Curated answers"), JSON or YAML:
 *
 * ```yaml
 * pairs:
 *   - question: How do I create a directory with its parents?
 *     answer: Call `fs.mkdir(path, { recursive: true })` [1].
 *     sources:
 *       - doc_id: fs.md
 *         heading: "`fs.mkdir(path[, options], callback)`"
 * ```
 *
 * A top-level array of pairs is accepted too. `[n]` markers in an answer
 * refer to its n-th source; an answer with sources and no markers gets them
 * appended, so every citation is referenced and every marker has a citation.
 */

const pairSchema = z.object({
  question: z.string().trim().min(1).max(2000),
  answer: z.string().trim().min(1).max(8000),
  sources: z
    .array(z.object({ doc_id: z.string().min(1), heading: z.string().min(1).optional() }))
    .default([]),
});
const pairsSchema = z.array(pairSchema);
const fileSchema = z.object({ pairs: pairsSchema });

/**
 * @param text the file's content
 * @param fileName used to choose the syntax (`.json` = JSON, otherwise YAML, a superset of JSON)
 * @throws Error saying which pair and field is wrong
 */
export function parseFaqFile(text: string, fileName: string): FaqPair[] {
  const syntax = extname(fileName).toLowerCase() === '.json' ? 'JSON' : 'YAML';
  let data: unknown;
  try {
    data = syntax === 'JSON' ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new Error(`"${fileName}" is not valid ${syntax}: ${(error as Error).message}`);
  }
  // An array and an object are told apart here rather than by a zod union, so
  // an error names the pair and field (a union reports only "Invalid input").
  const parsed = Array.isArray(data) ? pairsSchema.safeParse(data) : fileSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`"${fileName}": ${issue?.path.join('.') || 'file'}: ${issue?.message ?? 'invalid'}`);
  }
  const pairs = Array.isArray(parsed.data) ? parsed.data : parsed.data.pairs;
  return pairs.map((pair, position) => {
    const sources = pair.sources.map((source) =>
      source.heading === undefined ? { docId: source.doc_id } : { docId: source.doc_id, heading: source.heading },
    );
    let answer: string;
    try {
      answer = withCitationMarkers(pair.answer, sources.length);
    } catch (error) {
      if (!(error instanceof CitationMarkerError)) throw error;
      throw new Error(`"${fileName}": pairs.${position}.answer: ${error.message}`);
    }
    return { question: pair.question, answer, sources };
  });
}
