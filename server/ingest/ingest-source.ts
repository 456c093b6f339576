import { createHash } from 'node:crypto';
import { basename, extname } from 'node:path';
import { analyzeChunks } from './analyze-chunks.ts';
import { chunkDocument } from './chunker.ts';
import { parserFor } from './source-formats.ts';
import { ConflictError, type DocumentInput, type PutOutcome, type Store, type Visibility } from '../store/store.ts';

/** Bumped when parsing, chunking or analysis changes, so re-ingest rebuilds every document. */
export const INDEX_VERSION = 2;

/** One document's source and access options, as a file or the console API gives them. */
export interface SourceDocument {
  kbId: string;
  /** Readable id; its extension (`.md`, `.html`, `.txt`, ...) selects the parser. */
  docId: string;
  /** The source as bytes; must be UTF-8 text. */
  bytes: Uint8Array;
  visibility: Visibility;
  /** User ids allowed to read it when `restricted`. */
  readers: readonly string[];
  quotable: boolean;
  /** Folder it was ingested from, for pruning removed files. */
  sourceRoot?: string;
}

/** Why a source could not be indexed; the stored version, if any, is kept. */
export class SourceRejectedError extends Error {
  override name = 'SourceRejectedError';
}

/**
 * SHA-256 (hex) of a source and its access options: an unchanged hash means
 * re-ingesting has nothing to do.
 */
export function sourceContentHash(source: Pick<SourceDocument, 'bytes' | 'visibility' | 'readers' | 'quotable'>): string {
  return createHash('sha256')
    .update(source.bytes)
    .update(
      JSON.stringify({
        index: INDEX_VERSION,
        visibility: source.visibility,
        readers: [...source.readers].sort(),
        quotable: source.quotable,
      }),
    )
    .digest('hex');
}

/**
 * Parses, chunks, analyzes and stores one document in one transaction
 * (Store.putDocument): the knowledge base holds either its previous or its
 * new version, never half of it. Does nothing when the content hash is unchanged.
 *
 * @throws SourceRejectedError when the format is not supported, the bytes are
 *   not UTF-8, or the source has no text to index (nothing is written)
 * @throws the store's errors (NotFoundError for an unknown knowledge base, StoreUnavailableError)
 */
export async function ingestSource(store: Store, source: SourceDocument): Promise<PutOutcome> {
  const parse = parserFor(source.docId);
  if (!parse) {
    throw new SourceRejectedError(`"${source.docId}" has no supported extension (.md, .markdown, .html, .htm, .txt, .text)`);
  }
  const contentHash = sourceContentHash(source);
  const existing = await store.getDocument(source.kbId, source.docId);
  if (existing?.contentHash === contentHash) return 'unchanged';

  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(source.bytes);
  } catch {
    throw new SourceRejectedError('The file is not valid UTF-8 text');
  }
  const parsed = parse(text, titleFromFileName(source.docId));
  const chunks = analyzeChunks(chunkDocument(parsed));
  if (chunks.length === 0) throw new SourceRejectedError('The file has no text to index');
  const input: DocumentInput = {
    kbId: source.kbId,
    docId: source.docId,
    title: parsed.title,
    visibility: source.visibility,
    readers: [...source.readers],
    quotable: source.quotable,
    contentHash,
    chunks,
  };
  const stored = source.sourceRoot === undefined ? input : { ...input, sourceRoot: source.sourceRoot };
  try {
    return await store.putDocument(stored);
  } catch (error) {
    // Another process (a replica ingesting the same folder) created it first:
    // replace its version, or find it unchanged.
    if (!(error instanceof ConflictError)) throw error;
    return store.putDocument(stored);
  }
}

/** `getting-started_guide.md` -> `getting started guide`: the title of a page without a heading. */
function titleFromFileName(path: string): string {
  return basename(path, extname(path)).replace(/[-_]+/g, ' ');
}
