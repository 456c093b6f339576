import { createHash } from 'node:crypto';
import { analyzeChunks } from './analyze-chunks.ts';
import { INDEX_ANALYSIS_VERSION, indexPage } from '../../retrieval/index-fields.ts';
import { chunkDocument } from './chunker.ts';
import { titleFromPath } from './document-path.ts';
import { FrontMatterError } from '../parsing/front-matter.ts';
import { pageUrl } from './page-url.ts';
import { PdfError } from '../parsing/pdf-text.ts';
import { extractorFor, parserFor, SUPPORTED_EXTENSIONS } from '../parsing/source-formats.ts';
import { ConflictError, NotFoundError } from '../../errors.ts';
import {
  type AnchorStyle,
  type DocumentInput,
  type KnowledgeBase,
  type PutOutcome,
  type Store,
  type Visibility,
} from '../../store/store.ts';

/**
 * Bumped when parsing, chunking or analysis changes, so re-ingest rebuilds
 * every document. 3: front matter, site-generator markup, titles from file
 * names, descriptions, page URLs and section anchors (docs/ingestion.md "Documentation sites").
 * What each version forces to be rebuilt: docs/ingestion.md "What forces a rebuild".
 */
export const INDEX_VERSION = 3;

/** One document's source and access options, as a file or the console API gives them. */
export interface SourceDocument {
  kbId: string;
  /** Readable id; its extension (`.md`, `.html`, `.txt`, ...) selects the parser. */
  docId: string;
  /** The source as bytes: UTF-8 text, or a binary format's file (PDF). */
  bytes: Uint8Array;
  /**
   * A binary format's text, extracted from its bytes (`withExtractedText`):
   * a PDF's as HTML (ingest/parsing/pdf-text.ts). Absent for text formats, whose
   * bytes are decoded as UTF-8.
   */
  text?: string;
  visibility: Visibility;
  /** User ids allowed to read it when `restricted`. */
  readers: readonly string[];
  quotable: boolean;
  /** Folder it was ingested from, for pruning removed files (a website's origin and `/` for an imported page). */
  sourceRoot?: string;
  /** The page's URL when it was fetched from a website (ingest/web/): kept as the document's URL, whatever the site settings. */
  url?: string;
}

/** Why a source could not be indexed; the stored version, if any, is kept. */
export class SourceRejectedError extends Error {
  override name = 'SourceRejectedError';
}

/**
 * A source that parses but is not published as a page: a draft (front
 * matter `draft: true`) or a page with no text (a section index made only of
 * front matter). Not a failure of the file: `kb ingest` reports it as a
 * warning and removes any stored version (ingest-files.ts); the console API
 * refuses it like any rejected source.
 */
export class SourceSkippedError extends SourceRejectedError {
  override name = 'SourceSkippedError';
}

/**
 * SHA-256 (hex) of a source, its access options and how the knowledge base
 * makes heading anchors: an unchanged hash means re-ingesting has nothing to
 * do. (The site's base URL and URL style are not in it: a change of those
 * recomputes stored URLs without parsing, site-settings.ts.)
 */
export function sourceContentHash(
  source: Pick<SourceDocument, 'bytes' | 'visibility' | 'readers' | 'quotable'>,
  anchorStyle: AnchorStyle = 'github',
): string {
  return createHash('sha256')
    .update(source.bytes)
    .update(
      JSON.stringify({
        index: INDEX_VERSION,
        visibility: source.visibility,
        readers: [...source.readers].sort(),
        quotable: source.quotable,
        anchors: anchorStyle,
      }),
    )
    .digest('hex');
}

/**
 * Parses, chunks, analyzes and stores one document in one transaction
 * (Store.putDocument): the knowledge base holds either its previous or its
 * new version, never half of it. Does nothing when the content hash is unchanged.
 *
 * @param knowledgeBase the knowledge base's record when the caller has it
 *   (saves a read per document); read from the store otherwise
 * @throws SourceSkippedError when the page is a draft or has no text to
 *   index (nothing is written)
 * @throws SourceRejectedError when the format is not supported, the bytes are
 *   not UTF-8 (a PDF: not a readable PDF), or the front matter cannot be read (nothing is written)
 * @throws NotFoundError for an unknown knowledge base, and the store's errors (StoreUnavailableError)
 */
export async function ingestSource(store: Store, source: SourceDocument, knowledgeBase?: KnowledgeBase): Promise<PutOutcome> {
  if (!parserFor(source.docId)) throw unsupported(source.docId);
  const site = knowledgeBase ?? (await store.getKnowledgeBase(source.kbId));
  if (site === undefined) throw new NotFoundError(`Knowledge base "${source.kbId}" does not exist`);
  const contentHash = sourceContentHash(source, site.anchorStyle);
  const existing = await store.getDocument(source.kbId, source.docId);
  if (existing?.contentHash === contentHash) return 'unchanged';
  const input = prepareDocument(await withExtractedText(source), site, contentHash);
  try {
    return await store.putDocument(input);
  } catch (error) {
    // Another process (a replica ingesting the same folder) created it first:
    // replace its version, or find it unchanged.
    if (!(error instanceof ConflictError)) throw error;
    return store.putDocument(input);
  }
}

/**
 * The source with its text extracted when it is in a binary format (a PDF:
 * ingest/parsing/pdf-text.ts), ready for {@link prepareDocument}; a text format's
 * source as it is.
 *
 * @throws SourceRejectedError when the file cannot be read as its format (not a PDF, an encrypted PDF)
 */
export async function withExtractedText(source: SourceDocument): Promise<SourceDocument> {
  const extract = extractorFor(source.docId);
  if (extract === undefined || source.text !== undefined) return source;
  try {
    return { ...source, text: await extract(source.bytes) };
  } catch (error) {
    if (error instanceof PdfError) throw new SourceRejectedError(error.message);
    throw error;
  }
}

/**
 * Parses, chunks and analyzes one document into what the store keeps
 * (Store.putDocument, Store.putDocuments); reads and writes nothing.
 *
 * The document gets its title (front matter, first heading, else a
 * readable form of its path: document-path.ts), its description, its page
 * URL on the knowledge base's site (page-url.ts) and its passages' section
 * anchors in the site's anchor style.
 *
 * @param site the knowledge base's site settings (base URL, URL and anchor styles)
 * @param contentHash the source's {@link sourceContentHash}, which the caller compared with the stored one
 * @throws SourceSkippedError when the page is a draft or has no text to index
 * @throws SourceRejectedError when the format is not supported, the bytes are
 *   not UTF-8, or the front matter cannot be read
 */
export function prepareDocument(source: SourceDocument, site: KnowledgeBase, contentHash: string): DocumentInput {
  const parse = parserFor(source.docId);
  if (!parse) throw unsupported(source.docId);
  let text: string;
  if (source.text !== undefined) {
    text = source.text;
  } else if (extractorFor(source.docId) !== undefined) {
    throw new Error(`"${source.docId}" is in a binary format: extract its text first (withExtractedText)`);
  } else {
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(source.bytes);
    } catch {
      throw new SourceRejectedError('The file is not valid UTF-8 text');
    }
  }
  let parsed;
  try {
    parsed = parse(text, titleFromPath(source.docId), { anchorStyle: site.anchorStyle });
  } catch (error) {
    if (error instanceof FrontMatterError) throw new SourceRejectedError(error.message);
    throw error;
  }
  if (parsed.frontMatter?.draft) throw new SourceSkippedError('The page is a draft (draft: true in its front matter)');
  const fields = { title: parsed.title, ...(parsed.description === undefined ? {} : { description: parsed.description }) };
  const chunks = analyzeChunks(fields, chunkDocument(parsed));
  if (chunks.length === 0) throw new SourceSkippedError('The file has no text to index');
  // A page fetched from a website keeps its URL, stored as its route so that a change of the site settings keeps it too (site-settings.ts).
  const route =
    source.url !== undefined
      ? { url: source.url }
      : {
          ...(parsed.frontMatter?.url === undefined ? {} : { url: parsed.frontMatter.url }),
          ...(parsed.frontMatter?.slug === undefined ? {} : { slug: parsed.frontMatter.slug }),
        };
  const url = pageUrl(site, source.docId, route);
  return {
    kbId: source.kbId,
    docId: source.docId,
    title: parsed.title,
    ...(parsed.description === undefined ? {} : { description: parsed.description }),
    ...(url === undefined ? {} : { url }),
    ...(Object.keys(route).length === 0 ? {} : { route }),
    visibility: source.visibility,
    readers: [...source.readers],
    quotable: source.quotable,
    contentHash,
    analysisVersion: INDEX_ANALYSIS_VERSION,
    chunks,
    page: indexPage(source.docId, fields, chunks),
    ...(source.sourceRoot === undefined ? {} : { sourceRoot: source.sourceRoot }),
  };
}

function unsupported(docId: string): SourceRejectedError {
  return new SourceRejectedError(`"${docId}" has no supported extension (${SUPPORTED_EXTENSIONS})`);
}
