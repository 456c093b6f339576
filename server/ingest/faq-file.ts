import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { FaqPair } from '../store/store.ts';

/**
 * The curated question/answer file of `kb faq import` (README, "Curated
 * answers"), JSON or YAML:
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
const fileSchema = z.union([z.object({ pairs: z.array(pairSchema) }), z.array(pairSchema)]);

/**
 * @param text the file's content
 * @param fileName used to choose the syntax (`.json` = JSON, otherwise YAML, a superset of JSON)
 * @throws Error saying which pair and field is wrong
 */
export function parseFaqFile(text: string, fileName: string): FaqPair[] {
  let data: unknown;
  try {
    data = extname(fileName).toLowerCase() === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new Error(`"${fileName}" is not valid ${extname(fileName) === '.json' ? 'JSON' : 'YAML'}: ${(error as Error).message}`);
  }
  const parsed = fileSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`"${fileName}": ${issue?.path.join('.') || 'file'}: ${issue?.message ?? 'invalid'}`);
  }
  const pairs = Array.isArray(parsed.data) ? parsed.data : parsed.data.pairs;
  return pairs.map((pair, position) => {
    const sources = pair.sources.map((source) =>
      source.heading === undefined ? { docId: source.doc_id } : { docId: source.doc_id, heading: source.heading },
    );
    const markers = [...pair.answer.matchAll(/\[(\d+)\]/g)].map((match) => Number(match[1]));
    const bad = markers.find((marker) => marker < 1 || marker > sources.length);
    if (bad !== undefined) {
      throw new Error(`"${fileName}": pairs.${position}.answer: marker [${bad}] has no source ${bad}`);
    }
    const unreferenced = sources.map((_, index) => index + 1).filter((index) => !markers.includes(index));
    if (markers.length > 0 && unreferenced.length > 0) {
      throw new Error(`"${fileName}": pairs.${position}.answer: source ${unreferenced[0]} is never referenced`);
    }
    const answer =
      markers.length === 0 && sources.length > 0
        ? `${pair.answer} ${sources.map((_, index) => `[${index + 1}]`).join(' ')}`
        : pair.answer;
    return { question: pair.question, answer, sources };
  });
}
