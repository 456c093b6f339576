import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * BEIR SciFact, test split (Wadden et al., EMNLP 2020; Thakur et al.,
 * NeurIPS 2021) as stored in `shared/eval/scifact/` (see its README):
 * `corpus.jsonl`, `queries.jsonl`, `qrels.tsv`.
 */

export interface ScifactDocument {
  id: string;
  title: string;
  text: string;
}

export interface ScifactQuery {
  id: string;
  text: string;
}

export interface Scifact {
  documents: ScifactDocument[];
  /** Only queries that have qrels, in file order. */
  queries: ScifactQuery[];
  /** Query id -> document id -> relevance grade. */
  qrels: Map<string, Map<string, number>>;
}

/**
 * @param folder the `scifact/` folder
 * @throws Error when a file is missing or a line is not valid JSON / TSV
 */
export async function loadScifact(folder: string): Promise<Scifact> {
  const documents = jsonLines<{ _id: string; title: string; text: string }>(
    await readFile(join(folder, 'corpus.jsonl'), 'utf8'),
  ).map((entry) => ({ id: entry._id, title: entry.title, text: entry.text }));
  const qrels = new Map<string, Map<string, number>>();
  const [, ...rows] = (await readFile(join(folder, 'qrels.tsv'), 'utf8')).split('\n').filter((line) => line !== '');
  for (const row of rows) {
    const [queryId, docId, grade] = row.split('\t');
    if (queryId === undefined || docId === undefined || grade === undefined) throw new Error(`Malformed qrels row "${row}"`);
    const relevance = qrels.get(queryId) ?? new Map<string, number>();
    relevance.set(docId, Number(grade));
    qrels.set(queryId, relevance);
  }
  const queries = jsonLines<{ _id: string; text: string }>(await readFile(join(folder, 'queries.jsonl'), 'utf8'))
    .map((entry) => ({ id: entry._id, text: entry.text }))
    .filter((query) => qrels.has(query.id));
  return { documents, queries, qrels };
}

/** Parses JSON Lines text (one JSON value per non-empty line). */
export function jsonLines<T>(text: string): T[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);
}
