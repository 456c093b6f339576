/**
 * Websites a knowledge base re-imports on a schedule, and what their last
 * sync learned of each page. Their SQL is in import-source-repository.ts;
 * the syncing is server/ingest/'s.
 */

import type { Visibility } from '../../../protocol/workspace-terms.ts';

/**
 * A website a knowledge base re-imports on a schedule
 * (docs/ingestion.md "Importing a website": re-synced websites): what to crawl, who may read the
 * pages, the crawl's bounds, and when it runs next.
 */
export interface ImportSourceRecord {
  /** `src_` and 16 hex digits. */
  id: string;
  kbId: string;
  /** Pages (and what they link to) or one sitemap, as the person gave them. */
  kind: 'pages' | 'sitemap';
  urls: string[];
  settings: ImportSourceSettings;
  /** Hours between two syncs (> 0). */
  resyncHours: number;
  /** User id of who set it up: a sync imports with their access, while they may still import. */
  createdBy: string;
  createdAt: number;
  /** When the next sync is due, epoch milliseconds. */
  nextSyncAt: number;
  /** How the last sync ended; absent before the first one ends. */
  lastSync?: ImportSourceSync;
}

/** Access and bounds of a re-synced import, as its console form set them. */
export interface ImportSourceSettings {
  visibility: Visibility;
  readers: string[];
  quotable: boolean;
  maxPages: number;
  maxDepth: number;
}

/** How one sync of a source ended: documents by outcome, or why it failed. */
export interface ImportSourceSync {
  status: 'succeeded' | 'failed';
  finishedAt: number;
  created?: number;
  updated?: number;
  unchanged?: number;
  removed?: number;
  failed?: number;
  error?: string;
}

/**
 * What the last sync of a source learned of one page it stored: the
 * validators to send next time (`If-None-Match`, `If-Modified-Since`) and
 * the links it found, followed again when the page answers 304.
 */
export interface ImportPageState {
  /** The URL requested (before redirects). */
  url: string;
  docId: string;
  etag?: string;
  lastModified?: string;
  /** Links of the page within the crawl's scope, absolute. */
  links: string[];
}

/** The `import_sources` of a knowledge base and what their last sync learned (server/ingest/jobs/import-sources.ts). */
export interface ImportSourceRepository {
  /**
   * Adds a source, or updates the one of the same knowledge base, kind and
   * URLs (its settings, interval, creator and next sync; its id and
   * pages stay).
   *
   * @returns the stored source
   */
  saveImportSource(source: Omit<ImportSourceRecord, 'lastSync'>): Promise<ImportSourceRecord>;
  /** The sources of a knowledge base, by next sync. */
  listImportSources(kbId: string): Promise<ImportSourceRecord[]>;
  getImportSource(kbId: string, id: string): Promise<ImportSourceRecord | undefined>;
  /** Stops re-syncing a source (its documents stay); false when there is none of that id. */
  deleteImportSource(kbId: string, id: string): Promise<boolean>;
  /**
   * Claims the source most overdue at `at`, atomically: moves its next sync
   * to `at` + its interval only if no one else moved it first (`UPDATE ...
   * WHERE next_sync_at = <as read>`), so two processes sharing the
   * database never both run one sync.
   *
   * @returns the claimed source (with its next sync before the claim), or undefined when none is due
   */
  claimDueImportSource(at: number): Promise<ImportSourceRecord | undefined>;
  /**
   * Records how a sync ended and, when given, replaces the pages it learned
   * (in one transaction); nothing when the source was deleted meanwhile.
   */
  finishImportSourceSync(id: string, sync: ImportSourceSync, pages?: readonly ImportPageState[]): Promise<void>;
  /** What the last successful sync of a source learned of its pages. */
  listImportPages(sourceId: string): Promise<ImportPageState[]>;
}
