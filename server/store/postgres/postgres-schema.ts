/**
 * Versioned schema of the PostgreSQL store. Each migration runs once, recorded
 * in `schema_migrations`; all pending ones run in one transaction under an
 * advisory lock (postgres-migrate.ts), so replicas starting at once apply
 * them exactly once.
 *
 * The tables and columns are those of the embedded store
 * (store/sqlite/sqlite-schema.ts: migration 1 here is its migrations 1 to 7, migration 2 its 8, migration 3 its 9) so its queries translate one to
 * one, with PostgreSQL's own types where they are the natural choice: `bigint`
 * identity ids and epoch-millisecond times, `boolean` flags, `text[]` for the
 * heading path, allowed origins and scope. Text that lists are sorted by
 * (emails, ids, doc ids) uses the `"C"` collation, so listings come back in
 * the byte order SQLite uses whatever the database's default collation.
 *
 * This is a migration history of its own: it need not replay SQLite's.
 */
export const POSTGRES_MIGRATIONS: readonly { version: number; sql: string }[] = [
  {
    version: 1,
    sql: `
CREATE TABLE users (
  id text COLLATE "C" PRIMARY KEY,
  email text COLLATE "C" NOT NULL UNIQUE,
  name text NOT NULL,
  created_at bigint NOT NULL,
  password_hash text
);
CREATE TABLE knowledge_bases (
  id text COLLATE "C" PRIMARY KEY,
  name text NOT NULL,
  created_at bigint NOT NULL
);
CREATE TABLE memberships (
  kb_id text COLLATE "C" NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
  user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  role text NOT NULL CHECK (role IN ('reader', 'editor', 'owner')),
  PRIMARY KEY (kb_id, user_id)
);
CREATE INDEX memberships_user ON memberships (user_id);
CREATE TABLE documents (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kb_id text COLLATE "C" NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
  doc_id text COLLATE "C" NOT NULL,
  title text NOT NULL,
  visibility text NOT NULL CHECK (visibility IN ('public', 'workspace', 'restricted')),
  quotable boolean NOT NULL,
  content_hash text NOT NULL,
  source_root text,
  updated_at bigint NOT NULL,
  chunk_count integer NOT NULL DEFAULT 0,
  body_length_sum bigint NOT NULL DEFAULT 0,
  heading_length_sum bigint NOT NULL DEFAULT 0,
  UNIQUE (kb_id, doc_id)
);
CREATE TABLE document_readers (
  document_id bigint NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  PRIMARY KEY (document_id, user_id)
);
CREATE INDEX document_readers_user ON document_readers (user_id);
CREATE TABLE chunks (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  document_id bigint NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  kb_id text COLLATE "C" NOT NULL,
  ordinal integer NOT NULL,
  heading_path text[] NOT NULL,
  text text NOT NULL,
  body_length integer NOT NULL,
  heading_length integer NOT NULL
);
CREATE INDEX chunks_document ON chunks (document_id, ordinal);
CREATE INDEX chunks_kb ON chunks (kb_id);
CREATE TABLE postings (
  kb_id text COLLATE "C" NOT NULL,
  term text COLLATE "C" NOT NULL,
  chunk_id bigint NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
  document_id bigint NOT NULL,
  tf_body integer NOT NULL,
  tf_heading integer NOT NULL,
  body_length integer NOT NULL,
  heading_length integer NOT NULL,
  PRIMARY KEY (kb_id, term, chunk_id)
);
CREATE INDEX postings_chunk ON postings (chunk_id);
CREATE TABLE index_stats (
  kb_id text COLLATE "C" PRIMARY KEY REFERENCES knowledge_bases(id) ON DELETE CASCADE,
  chunk_count bigint NOT NULL,
  body_length_sum bigint NOT NULL,
  heading_length_sum bigint NOT NULL,
  -- incremented with every change of the knowledge base's postings (for caches of them)
  version bigint NOT NULL DEFAULT 0
);
CREATE TABLE faq_pairs (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kb_id text COLLATE "C" NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
  ordinal integer NOT NULL,
  question text NOT NULL,
  answer text NOT NULL,
  sources text NOT NULL
);
CREATE INDEX faq_pairs_kb ON faq_pairs (kb_id, ordinal);
CREATE TABLE tokens (
  id text COLLATE "C" PRIMARY KEY,
  kb_id text COLLATE "C" NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
  issuer_id text COLLATE "C" REFERENCES users(id) ON DELETE SET NULL,
  token_hash text NOT NULL UNIQUE,
  allowed_origins text[] NOT NULL,
  scope text[] NOT NULL,
  purpose text NOT NULL DEFAULT 'embed' CHECK (purpose IN ('embed', 'preview')),
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  revoked_at bigint,
  last_used_at bigint
);
CREATE INDEX tokens_kb ON tokens (kb_id, created_at);
CREATE INDEX tokens_issuer ON tokens (issuer_id);
CREATE TABLE settings (
  key text PRIMARY KEY,
  value text NOT NULL
);
CREATE TABLE sessions (
  id_hash text PRIMARY KEY,
  user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  last_seen_at bigint NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);
CREATE INDEX sessions_expires ON sessions (expires_at);
-- Fixed-window rate-limit counters shared by every replica. UNLOGGED: a hit
-- writes no WAL (no flush per request); a database crash empties the table,
-- which only restarts the current windows.
CREATE UNLOGGED TABLE rate_limits (
  key text PRIMARY KEY,
  hits integer NOT NULL,
  reset_at bigint NOT NULL
);
CREATE INDEX rate_limits_reset ON rate_limits (reset_at);
`,
  },
  {
    // Documentation sites (store/sqlite/sqlite-schema.ts migration 8): a
    // knowledge base's site, each document's description, page URL and front
    // matter route, each passage's section anchor.
    version: 2,
    sql: `
ALTER TABLE knowledge_bases ADD COLUMN base_url text;
ALTER TABLE knowledge_bases ADD COLUMN url_style text NOT NULL DEFAULT 'pretty' CHECK (url_style IN ('pretty', 'html'));
ALTER TABLE knowledge_bases ADD COLUMN anchor_style text NOT NULL DEFAULT 'github' CHECK (anchor_style IN ('github', 'node'));
ALTER TABLE documents ADD COLUMN description text;
ALTER TABLE documents ADD COLUMN url text;
ALTER TABLE documents ADD COLUMN route_url text;
ALTER TABLE documents ADD COLUMN route_slug text;
ALTER TABLE chunks ADD COLUMN anchor text;
`,
  },
  {
    // Visitors' feedback (store/sqlite/sqlite-schema.ts migration 9): ratings of
    // answers and problem reports on sources, with the passages their
    // source spans located; nothing identifies the visitor.
    version: 3,
    sql: `
CREATE TABLE feedback (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kb_id text COLLATE "C" NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('rating', 'problem')),
  created_at bigint NOT NULL,
  question text NOT NULL,
  provenance text NOT NULL CHECK (provenance IN ('generated', 'abstained', 'qa_shortcut')),
  rating text CHECK (rating IN ('up', 'down')),
  reason text,
  comment text,
  CHECK ((kind = 'rating') = (rating IS NOT NULL))
);
CREATE INDEX feedback_kb_created ON feedback (kb_id, created_at, id);
CREATE TABLE feedback_passages (
  feedback_id bigint NOT NULL REFERENCES feedback(id) ON DELETE CASCADE,
  ordinal integer NOT NULL,
  doc_id text COLLATE "C" NOT NULL,
  chunk_id bigint NOT NULL,
  version text NOT NULL,
  PRIMARY KEY (feedback_id, ordinal)
);
`,
  },
  {
    // Fielded index: the same change as SQLite migration 10 (see
    // store/sqlite/sqlite-schema.ts). (Number 3 belongs to the feedback table.)
    version: 4,
    sql: `
DROP TABLE postings;
CREATE TABLE postings (
  kb_id text COLLATE "C" NOT NULL,
  term text COLLATE "C" NOT NULL,
  chunk_id bigint NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
  document_id bigint NOT NULL,
  tf_title integer NOT NULL,
  tf_description integer NOT NULL,
  tf_heading integer NOT NULL,
  tf_body integer NOT NULL,
  PRIMARY KEY (kb_id, term, chunk_id)
);
CREATE INDEX postings_chunk ON postings (chunk_id);
ALTER TABLE chunks ADD COLUMN title_length integer NOT NULL DEFAULT 0;
ALTER TABLE chunks ADD COLUMN description_length integer NOT NULL DEFAULT 0;
ALTER TABLE documents ADD COLUMN title_length_sum bigint NOT NULL DEFAULT 0;
ALTER TABLE documents ADD COLUMN description_length_sum bigint NOT NULL DEFAULT 0;
ALTER TABLE documents ADD COLUMN analysis_version text;
CREATE TABLE page_postings (
  kb_id text COLLATE "C" NOT NULL,
  term text COLLATE "C" NOT NULL,
  document_id bigint NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  tf_title integer NOT NULL,
  tf_description integer NOT NULL,
  tf_lead integer NOT NULL,
  tf_headings integer NOT NULL,
  tf_body integer NOT NULL,
  tf_path integer NOT NULL,
  PRIMARY KEY (kb_id, term, document_id)
);
CREATE INDEX page_postings_document ON page_postings (document_id);
ALTER TABLE documents ADD COLUMN page_title_length bigint NOT NULL DEFAULT 0;
ALTER TABLE documents ADD COLUMN page_description_length bigint NOT NULL DEFAULT 0;
ALTER TABLE documents ADD COLUMN page_lead_length bigint NOT NULL DEFAULT 0;
ALTER TABLE documents ADD COLUMN page_headings_length bigint NOT NULL DEFAULT 0;
ALTER TABLE documents ADD COLUMN page_body_length bigint NOT NULL DEFAULT 0;
ALTER TABLE documents ADD COLUMN page_path_length bigint NOT NULL DEFAULT 0;
UPDATE chunks SET body_length = 0, heading_length = 0;
UPDATE documents SET body_length_sum = 0, heading_length_sum = 0;
UPDATE index_stats SET body_length_sum = 0, heading_length_sum = 0, version = version + 1;
`,
  },
  {
    // Index segments: postings packed per term and segment
    // (store/index/index-segments.ts, store/index/segment-codec.ts) instead of a row per posting,
    // so a search reads a few rows per query term. The documents are marked
    // stale: the server re-indexes them from their stored passages at start
    // (retrieval/reindex.ts), as after migration 4.
    version: 5,
    sql: `
DROP TABLE postings;
DROP TABLE page_postings;
CREATE TABLE index_segments (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kb_id text COLLATE "C" NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
  -- 0: passages (units are chunks), 1: pages (units are documents)
  kind smallint NOT NULL,
  units integer NOT NULL,
  postings bigint NOT NULL,
  -- units since deleted (their rows in segment_deletions)
  deleted integer NOT NULL DEFAULT 0
);
CREATE INDEX index_segments_kb ON index_segments (kb_id, kind);
CREATE TABLE segment_terms (
  kb_id text COLLATE "C" NOT NULL,
  kind smallint NOT NULL,
  term text COLLATE "C" NOT NULL,
  segment_id bigint NOT NULL REFERENCES index_segments(id) ON DELETE CASCADE,
  postings bytea NOT NULL,
  PRIMARY KEY (kb_id, kind, term, segment_id)
);
-- Stored uncompressed: a read is a copy, not a decompression.
ALTER TABLE segment_terms ALTER COLUMN postings SET STORAGE EXTERNAL;
CREATE INDEX segment_terms_segment ON segment_terms (segment_id);
CREATE TABLE segment_deletions (
  kb_id text COLLATE "C" NOT NULL,
  kind smallint NOT NULL,
  segment_id bigint NOT NULL REFERENCES index_segments(id) ON DELETE CASCADE,
  unit_id bigint NOT NULL,
  PRIMARY KEY (segment_id, unit_id)
);
CREATE INDEX segment_deletions_kb ON segment_deletions (kb_id, kind);
-- The segment holding each unit's postings (a narrow table of its own: moving
-- units between segments on a merge rewrites these rows, not the passages',
-- which would leave a dead copy of every passage's text behind).
CREATE TABLE segment_units (
  kb_id text COLLATE "C" NOT NULL,
  kind smallint NOT NULL,
  unit_id bigint NOT NULL,
  document_id bigint NOT NULL,
  segment_id bigint NOT NULL REFERENCES index_segments(id) ON DELETE CASCADE,
  PRIMARY KEY (kind, unit_id)
);
CREATE INDEX segment_units_document ON segment_units (document_id);
CREATE INDEX segment_units_segment ON segment_units (segment_id);
UPDATE documents SET analysis_version = NULL;
UPDATE index_stats SET version = version + 1;
`,
  },
  {
    // The content version (store/documents/content-version.ts), bumped by every write
    // that can change an answer: what the answer cache keys answers by.
    version: 6,
    sql: `
ALTER TABLE index_stats ADD COLUMN content_version bigint NOT NULL DEFAULT 0;
`,
  },
  {
    // The question log (store/sqlite/sqlite-schema.ts migration 13).
    version: 7,
    sql: `
CREATE TABLE question_log (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kb_id text COLLATE "C" NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
  created_at bigint NOT NULL,
  question text NOT NULL,
  provenance text NOT NULL CHECK (provenance IN ('generated', 'abstained', 'qa_shortcut')),
  cited_doc_ids text NOT NULL,
  latency_ms integer NOT NULL,
  channel text NOT NULL CHECK (channel IN ('json', 'stream')),
  rating text CHECK (rating IN ('up', 'down')),
  rating_reason text,
  problem_reports integer NOT NULL DEFAULT 0
);
CREATE INDEX question_log_kb_created ON question_log (kb_id, created_at, id);
CREATE INDEX question_log_kb_question ON question_log (kb_id, question, created_at);
CREATE INDEX question_log_created ON question_log (created_at);
`,
  },
  {
    // Tokens at scale (store/sqlite/sqlite-schema.ts migration 14): the
    // purpose 'demo', and the list's keyset index (newest first on
    // created_at, id).
    version: 8,
    sql: `
ALTER TABLE tokens DROP CONSTRAINT tokens_purpose_check;
ALTER TABLE tokens ADD CONSTRAINT tokens_purpose_check CHECK (purpose IN ('embed', 'preview', 'demo'));
DROP INDEX tokens_kb;
CREATE INDEX tokens_kb ON tokens (kb_id, created_at, id);
`,
  },
  {
    // Invitations' set-password links (store/sqlite/sqlite-schema.ts migration 15).
    version: 9,
    sql: `
CREATE TABLE password_links (
  secret_hash text COLLATE "C" PRIMARY KEY,
  user_id text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  used_at bigint,
  replaced_at bigint
);
CREATE INDEX password_links_user ON password_links (user_id);
CREATE INDEX password_links_expires ON password_links (expires_at);
`,
  },
  {
    // Re-synced website imports (store/sqlite/sqlite-schema.ts migration 16).
    version: 10,
    sql: `
CREATE TABLE import_sources (
  id text COLLATE "C" PRIMARY KEY,
  kb_id text COLLATE "C" NOT NULL REFERENCES knowledge_bases(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('pages', 'sitemap')),
  urls text COLLATE "C" NOT NULL,
  settings text NOT NULL,
  resync_hours integer NOT NULL CHECK (resync_hours > 0),
  created_by text COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  created_at bigint NOT NULL,
  next_sync_at bigint NOT NULL,
  last_sync text,
  UNIQUE (kb_id, kind, urls)
);
CREATE INDEX import_sources_due ON import_sources (next_sync_at);
CREATE TABLE import_pages (
  source_id text COLLATE "C" NOT NULL REFERENCES import_sources(id) ON DELETE CASCADE,
  url text COLLATE "C" NOT NULL,
  doc_id text COLLATE "C" NOT NULL,
  etag text,
  last_modified text,
  links text NOT NULL,
  PRIMARY KEY (source_id, url)
);
`,
  },
  {
    // Dense retrieval: passage vectors and the embedding cache
    // (store/sqlite/sqlite-schema.ts migration 17). Stored uncompressed, as
    // segment_terms' postings: float bytes hardly compress, and a read is
    // then a copy.
    version: 11,
    sql: `
CREATE TABLE passage_vectors (
  chunk_id bigint PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
  model_key text COLLATE "C" NOT NULL,
  text_hash text COLLATE "C" NOT NULL,
  vector bytea NOT NULL
);
ALTER TABLE passage_vectors ALTER COLUMN vector SET STORAGE EXTERNAL;
CREATE TABLE embedding_cache (
  model_key text COLLATE "C" NOT NULL,
  text_hash text COLLATE "C" NOT NULL,
  vector bytea NOT NULL,
  PRIMARY KEY (model_key, text_hash)
);
ALTER TABLE embedding_cache ALTER COLUMN vector SET STORAGE EXTERNAL;
`,
  },
];
