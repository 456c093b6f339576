import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ingestPaths, type IngestReport } from '../server/ingest/pipeline/ingest-files.ts';
import { embeddedStoreLocation, openStore } from '../server/store/open-store.ts';
import type { Reach, Store } from '../server/store/store.ts';
import { createLexicalRetriever } from '../server/retrieval/lexical-retriever.ts';
import type { Retriever } from '../server/retrieval/retriever.ts';
import { createDenseRetriever } from '../server/retrieval/dense-retriever.ts';
import type { HybridRetrieverOptions } from '../server/retrieval/hybrid-retriever.ts';
import { composeAnswerRetriever } from '../server/retrieval/answer-retriever.ts';
import { withSentenceSimilarity } from '../server/retrieval/sentence-similarity.ts';
import { embedPendingPassages } from '../server/embedding/embed-passages.ts';
import type { EvalEmbedder } from './eval-embedder.ts';

/** How a knowledge base retrieves: BM25F alone, dense retrieval alone, or both fused (the product's, with the model). */
export type RetrievalMode = 'bm25f' | 'dense' | 'hybrid';

/**
 * A knowledge base that lives for one evaluation: an embedded store in a
 * temporary folder, filled through the normal ingestion path (`ingestPaths`,
 * exactly as `npm run kb -- ingest` does, over source files written to disk
 * or over a folder given as it is), and removed with everything in it by
 * {@link ThrowawayKnowledgeBase.close}.
 */
export interface ThrowawayKnowledgeBase {
  store: Store;
  /**
   * The retriever an answer worker has over `store`: hybrid (BM25F and dense
   * retrieval fused) when the knowledge base was given an embedding model,
   * else lexical.
   */
  retriever: Retriever;
  /** Each retrieval mode on its own (the ablation): `bm25f` always, `dense` and `hybrid` with a model. */
  retrievers: Partial<Record<RetrievalMode, Retriever>>;
  /** Passages embedded after ingestion and the seconds it took (with a model). */
  embedded?: { passages: number; seconds: number };
  /** What an anonymous asker reaches: every document (all are public). */
  reach: Reach;
  /** Ingestion's report (documents created, failed). */
  report: IngestReport;
  /** Wall-clock milliseconds spent opening the store, writing the files (if any) and ingesting them. */
  ingestMilliseconds: number;
  /** Closes the store and deletes the folder. */
  close(): Promise<void>;
}

/** One source file of the knowledge base. */
export interface SourceDocument {
  /** File name, with an extension the ingester reads (`.md`, `.txt`); becomes the document id. */
  fileName: string;
  text: string;
}

/**
 * @param kbId id of the knowledge base (also used in the folder's name)
 * @param documents the files to ingest, public and quotable
 * @throws Error when a document fails to ingest (an evaluation over a partial corpus would mislead)
 */
export async function createThrowawayKnowledgeBase(
  kbId: string,
  documents: readonly SourceDocument[],
  embedding?: EmbeddingOptions,
): Promise<ThrowawayKnowledgeBase> {
  const knowledgeBase = await openThrowawayKnowledgeBase(kbId, embedding, async (folder) => {
    const sources = join(folder, 'sources');
    await mkdir(sources);
    for (const document of documents) await writeFile(join(sources, document.fileName), document.text);
    return [sources];
  });
  const [failure] = knowledgeBase.report.failed;
  if (failure) {
    await knowledgeBase.close();
    throw new Error(`Ingesting "${failure.docId}" into ${kbId} failed: ${failure.reason}`);
  }
  return knowledgeBase;
}

/**
 * A throwaway knowledge base of files and folders already on disk (a docs
 * site's source), ingested in place as `npm run kb -- ingest <paths>` would:
 * a file inside a given folder gets its path relative to that folder as its
 * document id. Files that fail to ingest are listed in the report, not
 * thrown: the caller decides whether a partial corpus is acceptable.
 *
 * @param kbId id of the knowledge base (also used in the folder's name)
 * @param paths files and folders, read and never written
 * @throws Error when a path does not exist (from `ingestPaths`)
 */
export async function ingestThrowawayKnowledgeBase(kbId: string, paths: readonly string[], embedding?: EmbeddingOptions): Promise<ThrowawayKnowledgeBase> {
  return openThrowawayKnowledgeBase(kbId, embedding, async () => [...paths]);
}

/** The embedding model to embed the passages with (retrieval becomes hybrid), and where to report progress. */
export interface EmbeddingOptions {
  embedder: EvalEmbedder | undefined;
  /** How the hybrid retriever fuses (reciprocal rank fusion, as the server does, unless said). */
  hybrid?: HybridRetrieverOptions;
  onProgress?: (message: string) => void;
}

/**
 * Opens an embedded store in a new temporary folder, creates the knowledge
 * base with an owner, and ingests the paths `prepare` returns (it may write
 * them into the folder it is given) as public, quotable documents.
 */
async function openThrowawayKnowledgeBase(
  kbId: string,
  embedding: EmbeddingOptions | undefined,
  prepare: (folder: string) => Promise<string[]>,
): Promise<ThrowawayKnowledgeBase> {
  const started = performance.now();
  const folder = await mkdtemp(join(tmpdir(), `kb-eval-${kbId}-`));
  const store = openStore(embeddedStoreLocation(folder));
  const close = async (): Promise<void> => {
    await store.close();
    await rm(folder, { recursive: true, force: true });
  };
  try {
    const paths = await prepare(folder);
    const owner = await store.createUser({ email: 'eval@example.com', name: 'Eval' });
    await store.createKnowledgeBase({ id: kbId, name: kbId });
    await store.setRole(kbId, owner.id, 'owner');
    const report = await ingestPaths(store, { kbId, paths, visibility: 'public', readers: [], quotable: true });
    const lexical = createLexicalRetriever(store);
    const retrievers: ThrowawayKnowledgeBase['retrievers'] = { bm25f: lexical };
    let embedded: ThrowawayKnowledgeBase['embedded'];
    const embedder = embedding?.embedder;
    if (embedder) {
      const embeddingStarted = performance.now();
      const done = await embedPendingPassages(store, {
        modelKey: embedder.modelKey,
        kbId,
        embed: (texts) => embedder.embedPassages(texts),
        tokenCount: embedder.tokenCount,
        onProgress: ({ done, total }) => {
          if (done === total || done % 4096 < 256) embedding.onProgress?.(`${kbId}: embedded ${done} of ${total} passages`);
        },
      });
      embedded = { passages: done.embedded, seconds: (performance.now() - embeddingStarted) / 1000 };
      const denseOptions = {
        modelKey: embedder.modelKey,
        dimensions: embedder.model.dimensions,
        similarityFloor: embedder.model.similarityFloor,
        embedQuery: (question: string) => embedder.embedQuery(question),
      };
      // As an answer worker composes it (the reach's statistics read once for both retrievers).
      retrievers.hybrid = composeAnswerRetriever(store, { dense: denseOptions, fusion: embedding.hybrid });
      retrievers.dense = withSentenceSimilarity(withLexicalStatistics(createDenseRetriever(store, denseOptions), lexical), store, denseOptions);
    }
    return {
      store,
      retriever: retrievers.hybrid ?? lexical,
      retrievers,
      ...(embedded && { embedded }),
      reach: { kbId, userId: '', visibilities: ['public'] },
      report,
      ingestMilliseconds: performance.now() - started,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * Dense retrieval's passages, best first, with the lexical retriever's
 * statistics of the question's terms (passage count, document
 * frequencies), which the answerer weighs terms with: the ablation's
 * "dense alone", answered as the hybrid retrieval's passages are (each
 * passage's lexical score 0, its similarity kept).
 */
function withLexicalStatistics(dense: Retriever, lexical: Retriever): Retriever {
  return {
    async search(query) {
      const [found, statistics] = await Promise.all([dense.search(query), lexical.search({ ...query, topK: 1 })]);
      return { ...statistics, passages: found.passages.map(({ pageEvidence: _lexicalOnly, ...passage }) => ({ ...passage, score: 0 })) };
    },
  };
}
