import { copyFile, mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { formatFigure, quantile } from './figures.ts';
import { collectAnswer } from '../server/engine/answer-events.ts';
import { createAnswerEngine, questionTerms } from '../server/engine/answer-engine.ts';
import { collectSourceFiles, ingestPaths } from '../server/ingest/pipeline/ingest-files.ts';
import { tokenize } from '../server/retrieval/analyzer.ts';
import { createLexicalRetriever } from '../server/retrieval/lexical-retriever.ts';
import { IndexCache } from '../server/retrieval/index-cache.ts';
import { embeddedStoreLocation, openStore, type StoreLocation } from '../server/store/open-store.ts';
import { scaleHybridRetriever, storeScaleVectors, type ScaleEmbedding } from './scale-hybrid.ts';
import type { Retriever, SearchResult } from '../server/retrieval/retriever.ts';
import type { Reach } from '../server/store/store.ts';

/**
 * The scale table of `npm run bench` (bench/README.md "Scale"): documentation corpora - the
 * bundled Node.js docs copied 1×, 4×, 16× (... ) under new names, and the
 * Kubernetes docs of the evaluation data - ingested into each backend
 * through the normal ingestion path, then searched and answered at one
 * client, beside SQLite FTS5 (BM25, porter stemmer) over the same passages
 * as the reference a user could pick instead.
 *
 * - ingest MB/s: the corpus's bytes over the wall-clock time of `ingestPaths`;
 * - store size: the whole database (documents, passages, index): the SQLite
 *   file after close, or the store's tables in PostgreSQL with their indexes
 *   and TOAST; FTS5's file holds the passages' text and its index;
 * - search: the lexical retriever over the question's terms (top 10), with
 *   the whole index held in memory as a server's answer worker holds it once
 *   read (retrieval/index-cache.ts; over its cap, terms read instead), beside
 *   the same searches reading their terms' postings from the store (right
 *   after an ingest, or over the cap), and the time the whole read took;
 *   answer: the whole extractive answer, index held.
 */

/** One row of the table: a backend on one corpus. */
export interface ScaleRow {
  /** The corpus's {@link ScaleCorpus.name}. */
  corpus: string;
  backend: string;
  documents: number;
  passages: number;
  corpusMegabytes: number;
  ingestSeconds: number;
  storeMegabytes: number;
  /** Searches with the index held in memory when it fits (else as `termSearch`). */
  search: { p50: number; p95: number };
  /** Searches reading their terms' postings from the store. */
  termSearch?: { p50: number; p95: number };
  /** Seconds to read the whole index into memory; undefined when it was not held (over the cap). */
  indexRead?: number;
  answer?: { p50: number; p95: number };
  /** Searches by BM25F and dense retrieval fused (bench/scale-hybrid.ts), the index held; undefined when not timed. */
  hybridSearch?: { p50: number; p95: number };
  /**
   * Questions whose top 10 (documents, heading paths, texts, scores to 12
   * significant digits) were the same on both of this backend's search
   * paths (index held, terms read) and, for PostgreSQL, the same as the
   * embedded store's: the backend parity of server/store/backend-parity.test.ts
   * at this scale.
   */
  sameResults?: { same: number; total: number };
}

/** One corpus of the table: one block of rows. */
export interface ScaleCorpus {
  /** Its name in the table ("Node.js docs 16x"). */
  name: string;
  /** Folder of its source files: ingested as it is when `copies` is 1 (with its subfolders), else its files copied. */
  source: string;
  /** Copies of the source's files, each in a folder of its own (1: the folder itself). */
  copies: number;
  /** Questions searched and answered, each once per pass. */
  questions: readonly string[];
}

/** Options of {@link measureScaleTable}. */
export interface ScaleTableOptions {
  /** The corpora, in table order. */
  corpora: readonly ScaleCorpus[];
  /** Passes over the questions measured (after one warm-up pass). */
  passes: number;
  /** Scratch folder (created, and removed at the end). */
  folder: string;
  /** A database of the local PostgreSQL server for the run (a schema per scale), or undefined to skip the backend. */
  postgresUrl?: string;
  /** Progress lines. */
  onProgress?: (message: string) => void;
  /** The demo's vectors, to time hybrid search on the corpora `hybridCorpora` names (each passage given its vector first). */
  embedding?: ScaleEmbedding;
  /** Names of the corpora whose hybrid search is timed (with `embedding`). */
  hybridCorpora?: readonly string[];
}

const MEGABYTE = 1024 * 1024;
const TOP_K = 10;
const OWNER_EMAIL = 'owner@example.com';
const KB_ID = 'scale';

/**
 * Measures every corpus on each backend and FTS5.
 *
 * @returns the rows, corpus by corpus: embedded, PostgreSQL (when given), FTS5
 */
export async function measureScaleTable(options: ScaleTableOptions): Promise<ScaleRow[]> {
  const progress = options.onProgress ?? (() => undefined);
  const rows: ScaleRow[] = [];
  await mkdir(options.folder, { recursive: true });
  try {
    for (const [position, scaleCorpus] of options.corpora.entries()) {
      const { name, copies } = scaleCorpus;
      const copied = copies > 1;
      const corpus = copied ? join(options.folder, `corpus-${position}`) : scaleCorpus.source;
      const corpusBytes = copied ? await copyCorpus(scaleCorpus.source, corpus, copies) : await folderBytes(corpus);
      const locations: { backend: string; location: StoreLocation; size: () => Promise<number> }[] = [
        {
          backend: 'embedded',
          location: embeddedStoreLocation(join(options.folder, `embedded-${position}`)),
          size: async () => (await stat(join(options.folder, `embedded-${position}`, 'kb.sqlite'))).size,
        },
      ];
      if (options.postgresUrl) {
        const schema = `scale_${position}`;
        locations.push({
          backend: 'PostgreSQL',
          location: { kind: 'postgres', url: options.postgresUrl, schema },
          size: () => postgresSchemaBytes(options.postgresUrl!, schema),
        });
      }
      let passages: { heading: string; text: string }[] = [];
      let embeddedResults: readonly string[] = [];
      for (const { backend, location, size } of locations) {
        progress(`${name}: ingesting ${(corpusBytes / MEGABYTE).toFixed(1)} MB into ${backend}`);
        const measured = await measureBackend(scaleCorpus, backend, location, corpus, corpusBytes, options, size);
        if (backend === 'embedded') {
          passages = measured.passages;
          embeddedResults = measured.results.held;
        }
        const { held, termsRead } = measured.results;
        const same = held.filter((result, index) => result === termsRead[index] && result === embeddedResults[index]).length;
        rows.push({ ...measured.row, sameResults: { same, total: held.length } });
      }
      progress(`${name}: FTS5 over ${passages.length} passages`);
      rows.push(await measureFts5(scaleCorpus, position, passages, corpusBytes, options));
      if (copied) await rm(corpus, { recursive: true, force: true });
    }
  } finally {
    await rm(options.folder, { recursive: true, force: true });
  }
  return rows;
}

/** Bytes of the files an ingest of `folder` reads (ingest/pipeline/ingest-files.ts's collectSourceFiles). */
async function folderBytes(folder: string): Promise<number> {
  const { files } = await collectSourceFiles([folder]);
  let bytes = 0;
  for (const file of files) bytes += (await stat(file.path)).size;
  return bytes;
}

/** Copies the corpus `scale` times into `target`, copy k under `copy<k>/`; returns the bytes copied. */
async function copyCorpus(source: string, target: string, scale: number): Promise<number> {
  const files = (await readdir(source)).filter((name) => name.endsWith('.md'));
  let bytes = 0;
  for (let copy = 0; copy < scale; copy += 1) {
    const folder = join(target, `copy${copy}`);
    await mkdir(folder, { recursive: true });
    for (const name of files) {
      await copyFile(join(source, name), join(folder, name));
      if (copy === 0) bytes += (await stat(join(source, name))).size;
    }
  }
  return bytes * scale;
}

async function measureBackend(
  scaleCorpus: ScaleCorpus,
  backend: string,
  location: StoreLocation,
  corpus: string,
  corpusBytes: number,
  options: ScaleTableOptions,
  size: () => Promise<number>,
): Promise<{ row: ScaleRow; passages: { heading: string; text: string }[]; results: { held: string[]; termsRead: string[] } }> {
  let store = openStore(location);
  const owner = await store.createUser({ email: OWNER_EMAIL, name: 'Owner' });
  await store.createKnowledgeBase({ id: KB_ID, name: scaleCorpus.name });
  await store.setRole(KB_ID, owner.id, 'owner');
  const started = performance.now();
  const report = await ingestPaths(store, { kbId: KB_ID, paths: [corpus], visibility: 'public', readers: [], quotable: true });
  const ingestSeconds = (performance.now() - started) / 1000;
  if (report.failed.length > 0) throw new Error(`Ingesting ${scaleCorpus.name} into ${backend} failed: ${report.failed[0]!.reason}`);
  // A server's view: a new connection, as a worker opens after the ingest.
  await store.close();
  store = openStore(location);
  try {
    const reach: Reach = { kbId: KB_ID, userId: owner.id, visibilities: ['public', 'workspace', 'restricted'] };
    const documents = await store.listDocuments(KB_ID);
    const passages: { heading: string; text: string }[] = [];
    if (backend === 'embedded') {
      for (const document of documents) {
        for (const passage of await store.passagesOf(reach, document.docId)) passages.push({ heading: passage.headingPath.join(' / '), text: passage.text });
      }
    }
    const searchWith = (retriever: Retriever) => (question: string) => retriever.search({ reach, terms: questionTerms(question), topK: TOP_K });
    // Terms read from the store for each search, as right after an ingest or when the index does not fit in memory.
    const termSearch = searchWith(createLexicalRetriever(store, { cache: false }));
    const termsRead: string[] = [];
    for (const question of scaleCorpus.questions) termsRead.push(resultSignature(await termSearch(question)));
    const termSearchTimes = await timeEach(options.passes, scaleCorpus.questions, termSearch);
    // The index held in memory once read (in the background after the first search), as a server's worker holds it.
    const cache = new IndexCache();
    const retriever = createLexicalRetriever(store, { cache });
    const search = searchWith(retriever);
    const readStarted = performance.now();
    await search(scaleCorpus.questions[0]!);
    await cache.settled();
    const indexReadSeconds = (performance.now() - readStarted) / 1000;
    const held = cache.postingTotal > 0;
    const heldResults: string[] = [];
    for (const question of scaleCorpus.questions) heldResults.push(resultSignature(await search(question)));
    const searchTimes = await timeEach(options.passes, scaleCorpus.questions, search);
    const engine = createAnswerEngine({ store, retriever });
    const answerTimes = await timeEach(options.passes, scaleCorpus.questions, (question) => collectAnswer(engine.answer({ question, reach })));
    let hybridTimes: number[] | undefined;
    if (options.embedding && options.hybridCorpora?.includes(scaleCorpus.name)) {
      options.onProgress?.(`${scaleCorpus.name}: a vector for every passage in ${backend}`);
      await storeScaleVectors(store, KB_ID, options.embedding);
      // Dense retrieval stays out unless every passage has its vector: a passage left without one would time BM25F alone.
      const waiting = await store.countPassagesWithoutVector(options.embedding.modelKey, KB_ID);
      if (waiting > 0) throw new Error(`${scaleCorpus.name} in ${backend}: ${waiting} passages left without a vector`);
      const hybrid = scaleHybridRetriever(store, cache, options.embedding);
      const hybridSearch = (question: string) => hybrid.search({ reach, terms: questionTerms(question), topK: TOP_K, question });
      // Once through, so the vectors are read before the timed passes.
      for (const question of scaleCorpus.questions) await hybridSearch(question);
      hybridTimes = await timeEach(options.passes, scaleCorpus.questions, hybridSearch);
    }
    await store.close();
    return {
      row: {
        corpus: scaleCorpus.name,
        backend,
        documents: documents.length,
        passages: documents.reduce((sum, document) => sum + document.chunkCount, 0),
        corpusMegabytes: corpusBytes / MEGABYTE,
        ingestSeconds,
        storeMegabytes: (await size()) / MEGABYTE,
        search: percentiles(searchTimes),
        termSearch: percentiles(termSearchTimes),
        indexRead: held ? indexReadSeconds : undefined,
        answer: percentiles(answerTimes),
        ...(hybridTimes && { hybridSearch: percentiles(hybridTimes) }),
      },
      passages,
      results: { held: heldResults, termsRead },
    };
  } finally {
    await store.close();
  }
}

/** A search's top passages as one comparable string: documents, heading paths, texts and scores (12 significant digits), in rank order. */
function resultSignature(result: SearchResult): string {
  return JSON.stringify(result.passages.map((passage) => [passage.docId, passage.headingPath, passage.text, passage.score.toPrecision(12)]));
}

/** FTS5 (porter stemmer, BM25 ranking) over the same passages: indexing time, file size, top-10 search time. */
async function measureFts5(
  scaleCorpus: ScaleCorpus,
  position: number,
  passages: readonly { heading: string; text: string }[],
  corpusBytes: number,
  options: ScaleTableOptions,
): Promise<ScaleRow> {
  const path = join(options.folder, `fts5-${position}.sqlite`);
  const database = new BetterSqlite3(path);
  try {
    database.pragma('journal_mode = WAL');
    database.exec(`CREATE VIRTUAL TABLE passages USING fts5(heading, text, tokenize = 'porter unicode61')`);
    const insert = database.prepare('INSERT INTO passages (heading, text) VALUES (?, ?)');
    const started = performance.now();
    database.transaction(() => {
      for (const passage of passages) insert.run(passage.heading, passage.text);
    })();
    const ingestSeconds = (performance.now() - started) / 1000;
    const search = database.prepare('SELECT rowid, bm25(passages) AS score FROM passages WHERE passages MATCH ? ORDER BY rank LIMIT 10');
    const query = (question: string) => {
      const words = [...new Set(tokenize(question))].map((word) => `"${word.replace(/"/g, '""')}"`);
      return words.length === 0 ? [] : search.all(words.join(' OR '));
    };
    for (const question of scaleCorpus.questions) query(question);
    const searchTimes = await timeEach(options.passes, scaleCorpus.questions, async (question) => query(question));
    database.pragma('wal_checkpoint(TRUNCATE)');
    return {
      corpus: scaleCorpus.name,
      backend: 'SQLite FTS5 (reference)',
      documents: 0,
      passages: passages.length,
      corpusMegabytes: corpusBytes / MEGABYTE,
      ingestSeconds,
      storeMegabytes: (await stat(path)).size / MEGABYTE,
      search: percentiles(searchTimes),
    };
  } finally {
    database.close();
  }
}

/** Milliseconds of each call, every question once per pass. */
async function timeEach(passes: number, questions: readonly string[], call: (question: string) => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let pass = 0; pass < passes; pass += 1) {
    for (const question of questions) {
      const started = performance.now();
      await call(question);
      times.push(performance.now() - started);
    }
  }
  return times;
}

function percentiles(values: readonly number[]): { p50: number; p95: number } {
  return { p50: quantile(values, 0.5), p95: quantile(values, 0.95) };
}

/** Bytes of the store's tables in a schema, with their indexes and TOAST. */
async function postgresSchemaBytes(url: string, schema: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ bytes: string }>(
      `SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) AS bytes
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'`,
      [schema],
    );
    return Number(rows[0]?.bytes ?? 0);
  } finally {
    await client.end();
  }
}

/** The questions of the Node.js docs set (eval/node-docs-questions.jsonl), in file order. */
export async function nodeDocsQuestions(path: string): Promise<string[]> {
  return (await readFile(path, 'utf8'))
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => (JSON.parse(line) as { question: string }).question);
}

/** The table in markdown. */
export function scaleTableMarkdown(rows: readonly ScaleRow[]): string[] {
  const format = formatFigure;
  return [
    '| corpus | backend | passages | corpus MB | ingest MB/s | store MB | search p50 / p95 (ms) | search, terms read p50 / p95 (ms) | whole index read (s) | answer p50 / p95 (ms) | hybrid search p50 / p95 (ms) | same top 10 |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (row) =>
        `| ${row.corpus} | ${row.backend} | ${row.passages.toLocaleString('en-US')} | ${format(row.corpusMegabytes)} | ${format(row.corpusMegabytes / row.ingestSeconds)} | ${format(row.storeMegabytes)} | ${format(row.search.p50)} / ${format(row.search.p95)} | ${row.termSearch ? `${format(row.termSearch.p50)} / ${format(row.termSearch.p95)}` : '-'} | ${row.indexRead === undefined ? '-' : format(row.indexRead)} | ${row.answer ? `${format(row.answer.p50)} / ${format(row.answer.p95)}` : '-'} | ${row.hybridSearch ? `${format(row.hybridSearch.p50)} / ${format(row.hybridSearch.p95)}` : '-'} | ${row.sameResults ? `${row.sameResults.same} / ${row.sameResults.total}` : '-'} |`,
    ),
  ];
}
