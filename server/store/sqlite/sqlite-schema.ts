/**
 * Versioned schema of the embedded SQLite store. Each migration runs once, in
 * a transaction, recorded in `schema_migrations`. The tables and columns are
 * the ones the PostgreSQL backend uses too (integer ids, epoch-millisecond
 * times, JSON arrays as text), so the queries translate one to one.
 */
export const SQLITE_MIGRATIONS: readonly { version: number; sql: string }[] = [
  {
    version: 1,
    sql: `
CREATE TABLE users (
  id TEXT PRIMARY KEY,
  email TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE TABLE knowledge_bases (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE TABLE memberships (
  kb_id TEXT NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role TEXT NOT NULL CHECK (role IN ('reader', 'editor', 'owner')),
  PRIMARY KEY (kb_id, user_id)
);
CREATE TABLE documents (
  id INTEGER PRIMARY KEY,
  kb_id TEXT NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
  doc_id TEXT NOT NULL,
  title TEXT NOT NULL,
  visibility TEXT NOT NULL CHECK (visibility IN ('public', 'workspace', 'restricted')),
  quotable INTEGER NOT NULL,
  content_hash TEXT NOT NULL,
  source_root TEXT,
  updated_at INTEGER NOT NULL,
  UNIQUE (kb_id, doc_id)
);
CREATE TABLE document_readers (
  document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  PRIMARY KEY (document_id, user_id)
);
CREATE TABLE chunks (
  id INTEGER PRIMARY KEY,
  document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  kb_id TEXT NOT NULL,
  ordinal INTEGER NOT NULL,
  heading_path TEXT NOT NULL,
  text TEXT NOT NULL,
  body_length INTEGER NOT NULL,
  heading_length INTEGER NOT NULL
);
CREATE INDEX chunks_document ON chunks (document_id, ordinal);
CREATE INDEX chunks_kb ON chunks (kb_id);
CREATE TABLE postings (
  kb_id TEXT NOT NULL,
  term TEXT NOT NULL,
  chunk_id INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
  tf_body INTEGER NOT NULL,
  tf_heading INTEGER NOT NULL,
  body_length INTEGER NOT NULL,
  heading_length INTEGER NOT NULL,
  PRIMARY KEY (kb_id, term, chunk_id)
) WITHOUT ROWID;
CREATE INDEX postings_chunk ON postings (chunk_id);
CREATE TABLE index_stats (
  kb_id TEXT PRIMARY KEY REFERENCES knowledge_bases(id) ON DELETE CASCADE,
  chunk_count INTEGER NOT NULL,
  body_length_sum INTEGER NOT NULL,
  heading_length_sum INTEGER NOT NULL
);
CREATE TABLE faq_pairs (
  id INTEGER PRIMARY KEY,
  kb_id TEXT NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
  ordinal INTEGER NOT NULL,
  question TEXT NOT NULL,
  answer TEXT NOT NULL,
  sources TEXT NOT NULL
);
CREATE INDEX faq_pairs_kb ON faq_pairs (kb_id, ordinal);
CREATE TABLE tokens (
  id TEXT PRIMARY KEY,
  kb_id TEXT NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
  issuer_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  token_hash TEXT NOT NULL UNIQUE,
  allowed_origins TEXT NOT NULL,
  scope TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  revoked_at INTEGER,
  last_used_at INTEGER
);
CREATE INDEX tokens_kb ON tokens (kb_id, created_at);
CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
`,
  },
  {
    // Console sign-in (docs/http-api.md "Sign-in and sessions"): a password hash per user (none until set)
    // and sessions stored by the SHA-256 of their id.
    version: 2,
    sql: `
ALTER TABLE users ADD COLUMN password_hash TEXT;
CREATE TABLE sessions (
  id_hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);
CREATE INDEX sessions_expires ON sessions (expires_at);
`,
  },
  {
    // A removed user's tokens stay listed (issuer unknown) instead of being
    // deleted with them, so the widget is told "revoked", not "invalid", and
    // the console keeps the record. SQLite cannot change a foreign key in
    // place: the table is rebuilt (https://sqlite.org/lang_altertable.html).
    version: 3,
    sql: `
CREATE TABLE tokens_rebuilt (
  id TEXT PRIMARY KEY,
  kb_id TEXT NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
  issuer_id TEXT REFERENCES users(id) ON DELETE SET NULL,
  token_hash TEXT NOT NULL UNIQUE,
  allowed_origins TEXT NOT NULL,
  scope TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  revoked_at INTEGER,
  last_used_at INTEGER
);
INSERT INTO tokens_rebuilt SELECT id, kb_id, issuer_id, token_hash, allowed_origins, scope, created_at, expires_at, revoked_at, last_used_at FROM tokens;
DROP TABLE tokens;
ALTER TABLE tokens_rebuilt RENAME TO tokens;
CREATE INDEX tokens_kb ON tokens (kb_id, created_at);
CREATE INDEX tokens_issuer ON tokens (issuer_id);
`,
  },
  {
    // Why a token was issued: 'embed' for a customer's page, 'preview' for
    // the short-lived token behind the Developers tab's live preview, whose
    // only allowed origin is the console's own. Both are listed and revocable.
    version: 4,
    sql: `
ALTER TABLE tokens ADD COLUMN purpose TEXT NOT NULL DEFAULT 'embed' CHECK (purpose IN ('embed', 'preview'));
`,
  },
  {
    // BM25 statistics within the reach (docs/design-decisions.md "Access rules"): what a
    // question is told must not depend on documents it cannot reach, so N,
    // avgdl and each term's df are computed over the readable documents.
    // Postings carry their document so they can be filtered without a join,
    // and documents carry their passage count and length sums.
    version: 5,
    sql: `
ALTER TABLE documents ADD COLUMN chunk_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE documents ADD COLUMN body_length_sum INTEGER NOT NULL DEFAULT 0;
ALTER TABLE documents ADD COLUMN heading_length_sum INTEGER NOT NULL DEFAULT 0;
UPDATE documents SET
  chunk_count = (SELECT COUNT(*) FROM chunks c WHERE c.document_id = documents.id),
  body_length_sum = (SELECT COALESCE(SUM(c.body_length), 0) FROM chunks c WHERE c.document_id = documents.id),
  heading_length_sum = (SELECT COALESCE(SUM(c.heading_length), 0) FROM chunks c WHERE c.document_id = documents.id);
CREATE TABLE postings_rebuilt (
  kb_id TEXT NOT NULL,
  term TEXT NOT NULL,
  chunk_id INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
  document_id INTEGER NOT NULL,
  tf_body INTEGER NOT NULL,
  tf_heading INTEGER NOT NULL,
  body_length INTEGER NOT NULL,
  heading_length INTEGER NOT NULL,
  PRIMARY KEY (kb_id, term, chunk_id)
) WITHOUT ROWID;
INSERT INTO postings_rebuilt
  SELECT p.kb_id, p.term, p.chunk_id, c.document_id, p.tf_body, p.tf_heading, p.body_length, p.heading_length
  FROM postings p JOIN chunks c ON c.id = p.chunk_id;
DROP TABLE postings;
ALTER TABLE postings_rebuilt RENAME TO postings;
CREATE INDEX postings_chunk ON postings (chunk_id);
`,
  },
  {
    // Rate-limit windows kept in the database, so that every process on it
    // shares them (docs/operations.md "Running several replicas").
    version: 6,
    sql: `
CREATE TABLE rate_limits (
  key TEXT PRIMARY KEY,
  hits INTEGER NOT NULL,
  reset_at INTEGER NOT NULL
);
CREATE INDEX rate_limits_reset ON rate_limits (reset_at);
`,
  },
  {
    // A version of each knowledge base's index, incremented in the same
    // transaction as every change of its postings (a document created,
    // updated or removed), so that a connection holding the postings in
    // memory (store/postings-cache.ts) sees with one cheap read whether they
    // are still current, whichever connection or process made the change.
    // Not `PRAGMA data_version`: that changes on every write (token use, rate limits).
    version: 7,
    sql: `
ALTER TABLE index_stats ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
`,
  },
  {
    // Documentation sites (docs/ingestion.md): a knowledge base's site (base URL, how
    // it publishes pages and makes heading ids), each document's description,
    // page URL and what its front matter said about the URL, and each
    // passage's section anchor, so citations can link to the section.
    // Existing rows get no URL, description or anchor until re-ingested
    // (INDEX_VERSION 3 re-parses every document on the next ingest).
    version: 8,
    sql: `
ALTER TABLE knowledge_bases ADD COLUMN base_url TEXT;
ALTER TABLE knowledge_bases ADD COLUMN url_style TEXT NOT NULL DEFAULT 'pretty' CHECK (url_style IN ('pretty', 'html'));
ALTER TABLE knowledge_bases ADD COLUMN anchor_style TEXT NOT NULL DEFAULT 'github' CHECK (anchor_style IN ('github', 'node'));
ALTER TABLE documents ADD COLUMN description TEXT;
ALTER TABLE documents ADD COLUMN url TEXT;
ALTER TABLE documents ADD COLUMN route_url TEXT;
ALTER TABLE documents ADD COLUMN route_slug TEXT;
ALTER TABLE chunks ADD COLUMN anchor TEXT;
`,
  },
  {
    // Visitors' feedback (docs/http-api.md): ratings of answers and problem reports
    // on sources, for the knowledge base's editors. The passages are those
    // the answer's source spans located (document, passage, version); no
    // foreign key to documents, so a record outlives the document it names.
    // Nothing identifies the visitor.
    version: 9,
    sql: `
CREATE TABLE feedback (
  id INTEGER PRIMARY KEY,
  kb_id TEXT NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('rating', 'problem')),
  created_at INTEGER NOT NULL,
  question TEXT NOT NULL,
  provenance TEXT NOT NULL CHECK (provenance IN ('generated', 'abstained', 'qa_shortcut')),
  rating TEXT CHECK (rating IN ('up', 'down')),
  reason TEXT,
  comment TEXT,
  CHECK ((kind = 'rating') = (rating IS NOT NULL))
);
CREATE INDEX feedback_kb_created ON feedback (kb_id, created_at, id);
CREATE TABLE feedback_passages (
  feedback_id INTEGER NOT NULL REFERENCES feedback(id) ON DELETE CASCADE,
  ordinal INTEGER NOT NULL,
  doc_id TEXT NOT NULL,
  chunk_id INTEGER NOT NULL,
  version TEXT NOT NULL,
  PRIMARY KEY (feedback_id, ordinal)
) WITHOUT ROWID;
`,
  },
  {
    // Fielded index (retrieval/index-fields.ts): a posting keeps
    // the term's frequency in each field of its passage (the document's
    // title and description, the section headings, the text) and a passage
    // each field's length; each page is indexed whole too (page_postings:
    // title, description, lead, headings, text, path; the page's field
    // lengths on its document row); the index records which analysis made it
    // (documents.analysis_version, NULL for every existing document), so the
    // server re-makes stale postings from the stored passages at start
    // (retrieval/reindex.ts). Existing postings are dropped here: every
    // document is stale until then. (Number 9 belongs to the feedback table.)
    version: 10,
    sql: `
DROP TABLE postings;
CREATE TABLE postings (
  kb_id TEXT NOT NULL,
  term TEXT NOT NULL,
  chunk_id INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
  document_id INTEGER NOT NULL,
  tf_title INTEGER NOT NULL,
  tf_description INTEGER NOT NULL,
  tf_heading INTEGER NOT NULL,
  tf_body INTEGER NOT NULL,
  PRIMARY KEY (kb_id, term, chunk_id)
) WITHOUT ROWID;
CREATE INDEX postings_chunk ON postings (chunk_id);
ALTER TABLE chunks ADD COLUMN title_length INTEGER NOT NULL DEFAULT 0;
ALTER TABLE chunks ADD COLUMN description_length INTEGER NOT NULL DEFAULT 0;
ALTER TABLE documents ADD COLUMN title_length_sum INTEGER NOT NULL DEFAULT 0;
ALTER TABLE documents ADD COLUMN description_length_sum INTEGER NOT NULL DEFAULT 0;
ALTER TABLE documents ADD COLUMN analysis_version TEXT;
CREATE TABLE page_postings (
  kb_id TEXT NOT NULL,
  term TEXT NOT NULL,
  document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  tf_title INTEGER NOT NULL,
  tf_description INTEGER NOT NULL,
  tf_lead INTEGER NOT NULL,
  tf_headings INTEGER NOT NULL,
  tf_body INTEGER NOT NULL,
  tf_path INTEGER NOT NULL,
  PRIMARY KEY (kb_id, term, document_id)
) WITHOUT ROWID;
CREATE INDEX page_postings_document ON page_postings (document_id);
ALTER TABLE documents ADD COLUMN page_title_length INTEGER NOT NULL DEFAULT 0;
ALTER TABLE documents ADD COLUMN page_description_length INTEGER NOT NULL DEFAULT 0;
ALTER TABLE documents ADD COLUMN page_lead_length INTEGER NOT NULL DEFAULT 0;
ALTER TABLE documents ADD COLUMN page_headings_length INTEGER NOT NULL DEFAULT 0;
ALTER TABLE documents ADD COLUMN page_body_length INTEGER NOT NULL DEFAULT 0;
ALTER TABLE documents ADD COLUMN page_path_length INTEGER NOT NULL DEFAULT 0;
UPDATE chunks SET body_length = 0, heading_length = 0;
UPDATE documents SET body_length_sum = 0, heading_length_sum = 0;
UPDATE index_stats SET body_length_sum = 0, heading_length_sum = 0, version = version + 1;
`,
  },
  {
    // Index segments (store/index/index-segments.ts): postings packed
    // per term and segment instead of a row per posting, as PostgreSQL
    // migration 5. Every document is stale until the server re-indexes it
    // from its stored passages at start, as after migration 10.
    version: 11,
    sql: `
DROP TABLE postings;
DROP TABLE page_postings;
CREATE TABLE index_segments (
  id INTEGER PRIMARY KEY,
  kb_id TEXT NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
  kind INTEGER NOT NULL,
  units INTEGER NOT NULL,
  postings INTEGER NOT NULL,
  deleted INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX index_segments_kb ON index_segments (kb_id, kind);
-- A rowid table: its rows hold kilobytes of postings, which a WITHOUT ROWID
-- table's B-tree would carry in every interior split (SQLite's advice:
-- "WITHOUT ROWID tables ... work best when individual rows are small").
CREATE TABLE segment_terms (
  kb_id TEXT NOT NULL,
  kind INTEGER NOT NULL,
  term TEXT NOT NULL,
  segment_id INTEGER NOT NULL REFERENCES index_segments(id) ON DELETE CASCADE,
  postings BLOB NOT NULL
);
CREATE UNIQUE INDEX segment_terms_term ON segment_terms (kb_id, kind, term, segment_id);
CREATE INDEX segment_terms_segment ON segment_terms (segment_id);
CREATE TABLE segment_deletions (
  kb_id TEXT NOT NULL,
  kind INTEGER NOT NULL,
  segment_id INTEGER NOT NULL REFERENCES index_segments(id) ON DELETE CASCADE,
  unit_id INTEGER NOT NULL,
  PRIMARY KEY (segment_id, unit_id)
) WITHOUT ROWID;
CREATE INDEX segment_deletions_kb ON segment_deletions (kb_id, kind);
-- The segment holding each unit's postings (a narrow table of its own: moving
-- units between segments on a merge rewrites these rows, not the passages').
CREATE TABLE segment_units (
  kb_id TEXT NOT NULL,
  kind INTEGER NOT NULL,
  unit_id INTEGER NOT NULL,
  document_id INTEGER NOT NULL,
  segment_id INTEGER NOT NULL REFERENCES index_segments(id) ON DELETE CASCADE,
  PRIMARY KEY (kind, unit_id)
) WITHOUT ROWID;
CREATE INDEX segment_units_document ON segment_units (document_id);
CREATE INDEX segment_units_segment ON segment_units (segment_id);
UPDATE documents SET analysis_version = NULL;
UPDATE index_stats SET version = version + 1;
`,
  },
  {
    // The content version (store/documents/content-version.ts), bumped by every write
    // that can change an answer, as PostgreSQL migration 6.
    version: 12,
    sql: `
ALTER TABLE index_stats ADD COLUMN content_version INTEGER NOT NULL DEFAULT 0;
`,
  },
  {
    // The question log (docs/operations.md "Question log"): each question visitors asked, what became
    // of it and the feedback that arrived for it, for the knowledge base's
    // editors; kept for a retention period (question-log-retention.ts).
    // Nothing identifies the visitor. Cited documents are a JSON array.
    version: 13,
    sql: `
CREATE TABLE question_log (
  id INTEGER PRIMARY KEY,
  kb_id TEXT NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  question TEXT NOT NULL,
  provenance TEXT NOT NULL CHECK (provenance IN ('generated', 'abstained', 'qa_shortcut')),
  cited_doc_ids TEXT NOT NULL,
  latency_ms INTEGER NOT NULL,
  channel TEXT NOT NULL CHECK (channel IN ('json', 'stream')),
  rating TEXT CHECK (rating IN ('up', 'down')),
  rating_reason TEXT,
  problem_reports INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX question_log_kb_created ON question_log (kb_id, created_at, id);
CREATE INDEX question_log_kb_question ON question_log (kb_id, question, created_at);
CREATE INDEX question_log_created ON question_log (created_at);
`,
  },
  {
    // Tokens at scale (docs/console.md "Developers"): the purpose 'demo' for the demo
    // page's tokens, and an index for the Developers tab's list, newest
    // first a page at a time (keyset on created_at, id). SQLite cannot
    // change a CHECK in place: the table is rebuilt
    // (https://sqlite.org/lang_altertable.html, as migration 3 did).
    version: 14,
    sql: `
CREATE TABLE tokens_rebuilt (
  id TEXT PRIMARY KEY,
  kb_id TEXT NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
  issuer_id TEXT REFERENCES users(id) ON DELETE SET NULL,
  token_hash TEXT NOT NULL UNIQUE,
  allowed_origins TEXT NOT NULL,
  scope TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  revoked_at INTEGER,
  last_used_at INTEGER,
  purpose TEXT NOT NULL DEFAULT 'embed' CHECK (purpose IN ('embed', 'preview', 'demo'))
);
INSERT INTO tokens_rebuilt (id, kb_id, issuer_id, token_hash, allowed_origins, scope, created_at, expires_at, revoked_at, last_used_at, purpose)
  SELECT id, kb_id, issuer_id, token_hash, allowed_origins, scope, created_at, expires_at, revoked_at, last_used_at, purpose FROM tokens;
DROP TABLE tokens;
ALTER TABLE tokens_rebuilt RENAME TO tokens;
CREATE INDEX tokens_kb ON tokens (kb_id, created_at, id);
CREATE INDEX tokens_issuer ON tokens (issuer_id);
`,
  },
  {
    // Invitations (docs/console.md "Members"): one-time set-password links, stored
    // by the SHA-256 of their secret with their user, expiry, use and
    // replacement by a newer link (store/sign-in/password-link-repository.ts).
    version: 15,
    sql: `
CREATE TABLE password_links (
  secret_hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  used_at INTEGER,
  replaced_at INTEGER
);
CREATE INDEX password_links_user ON password_links (user_id);
CREATE INDEX password_links_expires ON password_links (expires_at);
`,
  },
  {
    // Re-synced website imports (docs/ingestion.md "Importing a website"): a source
    // per knowledge base, kind and URLs with its access, bounds, interval and
    // next sync; and per page of its last sync the validators to send next
    // time and the links found (store/import-sources/import-source-repository.ts).
    version: 16,
    sql: `
CREATE TABLE import_sources (
  id TEXT PRIMARY KEY,
  kb_id TEXT NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('pages', 'sitemap')),
  urls TEXT NOT NULL,
  settings TEXT NOT NULL,
  resync_hours INTEGER NOT NULL CHECK (resync_hours > 0),
  created_by TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  next_sync_at INTEGER NOT NULL,
  last_sync TEXT,
  UNIQUE (kb_id, kind, urls)
);
CREATE INDEX import_sources_due ON import_sources (next_sync_at);
CREATE TABLE import_pages (
  source_id TEXT NOT NULL REFERENCES import_sources(id) ON DELETE CASCADE,
  url TEXT NOT NULL,
  doc_id TEXT NOT NULL,
  etag TEXT,
  last_modified TEXT,
  links TEXT NOT NULL,
  PRIMARY KEY (source_id, url)
);
`,
  },
  {
    // Dense retrieval (store/embeddings/embedding-repository.ts): each passage's
    // embedding under the key of the model that computed it, and the vectors
    // by the hash of the text embedded, so re-ingesting an unchanged text (its
    // passage gets a new id) needs no model run. Vectors are Float32
    // little-endian bytes. A knowledge base's vectors are found through
    // chunks_kb, then this primary key. Rowid tables: their rows hold
    // kilobytes (as segment_terms, migration 11).
    version: 17,
    sql: `
CREATE TABLE passage_vectors (
  chunk_id INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
  model_key TEXT NOT NULL,
  text_hash TEXT NOT NULL,
  vector BLOB NOT NULL
);
CREATE TABLE embedding_cache (
  model_key TEXT NOT NULL,
  text_hash TEXT NOT NULL,
  vector BLOB NOT NULL,
  PRIMARY KEY (model_key, text_hash)
);
`,
  },
];
