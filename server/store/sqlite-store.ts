import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3, { type Database, type Statement } from 'better-sqlite3';
import { SQLITE_MIGRATIONS } from './sqlite-schema.ts';
import { rateLimitRepository, sessionRepository, settingsRepository, tokenRepository } from './shared-repositories.ts';
import { SQLITE_DIALECT, type SqlExecutor } from './sql-executor.ts';
import {
  PASSAGE_COLUMNS,
  prepareIndexReads,
  SQLITE_REACH_FILTER,
  sqliteReachParameters,
  toPassage,
  type PassageRow,
  type SqliteIndexReads,
} from './sqlite-index.ts';
import type { IndexedPage, IndexedPassage, KnowledgeBaseIndex, ReachStatistics } from './index-data.ts';
import {
  changedKnowledgeBase,
  documentRecord,
  newId,
  FEEDBACK_COLUMNS,
  feedbackRecords,
  KNOWLEDGE_BASE_COLUMNS,
  newKnowledgeBase,
  toKnowledgeBase,
  type DocumentRowBase,
  type FeedbackPassageRow,
  type FeedbackRow,
  type KnowledgeBaseRow,
} from './store-records.ts';
import {
  ConflictError,
  NotFoundError,
  StoreUnavailableError,
  type BatchPutOutcome,
  type DocumentInput,
  type DocumentRecord,
  type FaqPair,
  type FeedbackCursor,
  type FeedbackInput,
  type FeedbackRecord,
  type KnowledgeBase,
  type KnowledgeBaseChanges,
  type Membership,
  type PutOutcome,
  type Reach,
  type Role,
  type IndexablePassage,
  type ScoredPassage,
  type StoredPassage,
  type RateLimitRepository,
  type SessionRepository,
  type SettingsRepository,
  type TokenRepository,
  type Store,
  type User,
  type Visibility,
} from './store.ts';

/** Options of {@link openSqliteStore}. */
export interface SqliteStoreOptions {
  /** Database file path; its folder is created when missing. */
  path: string;
  /** Clock in epoch milliseconds; injectable for tests. */
  now?: () => number;
}

interface DocumentRow extends DocumentRowBase {
  id: number;
  quotable: number;
  /** JSON array of user ids, or null. */
  readers: string | null;
}

/**
 * Opens (creating when needed) the embedded store: SQLite through
 * better-sqlite3 in WAL mode, so the CLI and the answer workers can read
 * while another connection writes. Calls are synchronous underneath: open
 * one store per thread.
 * Migrations are applied in a transaction at open.
 *
 * @throws StoreUnavailableError when the file cannot be opened
 */
export function openSqliteStore(options: SqliteStoreOptions): Store {
  let database: Database;
  try {
    mkdirSync(dirname(options.path), { recursive: true });
    database = new BetterSqlite3(options.path);
    database.pragma('journal_mode = WAL');
    database.pragma('synchronous = NORMAL');
    database.pragma('foreign_keys = ON');
    database.pragma('busy_timeout = 5000');
    migrate(database);
  } catch (error) {
    throw new StoreUnavailableError(`Cannot open the database at "${options.path}": ${(error as Error).message}`, {
      cause: error,
    });
  }
  return new SqliteStore(database, options);
}

function migrate(database: Database): void {
  database.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)');
  const applied = new Set(
    database.prepare<[], { version: number }>('SELECT version FROM schema_migrations').all().map((row) => row.version),
  );
  for (const migration of SQLITE_MIGRATIONS) {
    if (applied.has(migration.version)) continue;
    database.transaction(() => {
      database.exec(migration.sql);
      database.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(migration.version, Date.now());
    }).immediate();
  }
}

function toDocument(row: DocumentRow): DocumentRecord {
  return documentRecord(row, { readers: row.readers ? (JSON.parse(row.readers) as string[]) : [], quotable: row.quotable === 1 });
}

const DOCUMENT_COLUMNS = `d.id, d.kb_id, d.doc_id, d.title, d.description, d.url, d.route_url, d.route_slug, d.visibility, d.quotable,
  d.content_hash, d.source_root, d.updated_at, d.chunk_count,
  (SELECT json_group_array(r.user_id) FROM document_readers r WHERE r.document_id = d.id) AS readers`;

/** Reach filter shared by the passage queries (the search SQL's rule). */
const REACH_FILTER = SQLITE_REACH_FILTER;

/** The repositories written once for both backends (shared-repositories.ts), taken as they are. */
interface SqliteStore extends RateLimitRepository, SessionRepository, SettingsRepository, TokenRepository {}

class SqliteStore implements Store {
  readonly #database: Database;
  readonly #now: () => number;
  readonly #index: SqliteIndexReads;
  readonly #statements = new Map<string, Statement>();

  constructor(database: Database, options: SqliteStoreOptions) {
    this.#database = database;
    this.#now = options.now ?? Date.now;
    this.#index = prepareIndexReads(database);
    const sql: SqlExecutor = {
      dialect: SQLITE_DIALECT,
      all: <Row>(text: string, params: readonly unknown[] = []) => this.#call(() => this.#prepare<unknown[], Row>(text).all(...params)),
      get: <Row>(text: string, params: readonly unknown[] = []) => this.#call(() => this.#prepare<unknown[], Row>(text).get(...params)),
      run: (text: string, params: readonly unknown[] = []) => this.#call(() => this.#prepare(text).run(...params).changes),
    };
    Object.assign(this, rateLimitRepository(sql), sessionRepository(sql), settingsRepository(sql), tokenRepository(sql));
  }

  /** Prepares a statement once per connection and reuses it. */
  #prepare<Parameters extends unknown[] | object = unknown[], Row = unknown>(sql: string): Statement<Parameters, Row> {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#database.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement as unknown as Statement<Parameters, Row>;
  }

  /** Runs a synchronous database call, translating driver failures into store errors. */
  #call<T>(work: () => T): Promise<T> {
    try {
      return Promise.resolve(work());
    } catch (error) {
      return Promise.reject(translateError(error));
    }
  }

  createUser(input: { email: string; name: string }): Promise<User> {
    return this.#call(() => {
      const user: User = { id: newId('usr'), email: input.email.trim().toLowerCase(), name: input.name, createdAt: this.#now() };
      this.#prepare('INSERT INTO users (id, email, name, created_at) VALUES (@id, @email, @name, @createdAt)')
        .run(user);
      return user;
    });
  }

  getUser(id: string): Promise<User | undefined> {
    return this.#call(() =>
      this.#prepare<[string], User>('SELECT id, email, name, created_at AS createdAt FROM users WHERE id = ?')
        .get(id),
    );
  }

  findUserByEmail(email: string): Promise<User | undefined> {
    return this.#call(() =>
      this.#prepare<[string], User>('SELECT id, email, name, created_at AS createdAt FROM users WHERE email = ?')
        .get(email.trim().toLowerCase()),
    );
  }

  listUsers(): Promise<User[]> {
    return this.#call(() =>
      this.#prepare<[], User>('SELECT id, email, name, created_at AS createdAt FROM users ORDER BY email').all(),
    );
  }

  removeUser(id: string): Promise<void> {
    return this.#call(() => {
      this.#prepare('DELETE FROM users WHERE id = ?').run(id);
    });
  }

  setPasswordHash(userId: string, passwordHash: string): Promise<void> {
    return this.#call(() => {
      const { changes } = this.#prepare('UPDATE users SET password_hash = ? WHERE id = ?').run(passwordHash, userId);
      if (changes === 0) throw new NotFoundError(`User "${userId}" does not exist`);
    });
  }

  getPasswordHash(userId: string): Promise<string | undefined> {
    return this.#call(
      () =>
        this.#prepare<[string], { password_hash: string | null }>('SELECT password_hash FROM users WHERE id = ?')
          .get(userId)?.password_hash ?? undefined,
    );
  }

  createKnowledgeBase(input: Parameters<Store['createKnowledgeBase']>[0]): Promise<KnowledgeBase> {
    return this.#call(() => {
      const knowledgeBase = newKnowledgeBase(input, this.#now());
      this.#database.transaction(() => {
        this.#prepare(
          `INSERT INTO knowledge_bases (id, name, created_at, base_url, url_style, anchor_style)
           VALUES (?, ?, ?, ?, ?, ?)`,
        ).run(
          knowledgeBase.id,
          knowledgeBase.name,
          knowledgeBase.createdAt,
          knowledgeBase.baseUrl ?? null,
          knowledgeBase.urlStyle,
          knowledgeBase.anchorStyle,
        );
        this.#prepare('INSERT INTO index_stats (kb_id, chunk_count, body_length_sum, heading_length_sum) VALUES (?, 0, 0, 0)')
          .run(input.id);
      })();
      return knowledgeBase;
    });
  }

  getKnowledgeBase(id: string): Promise<KnowledgeBase | undefined> {
    return this.#call(() => {
      const row = this.#prepare<[string], KnowledgeBaseRow>(`SELECT ${KNOWLEDGE_BASE_COLUMNS} FROM knowledge_bases WHERE id = ?`).get(id);
      return row && toKnowledgeBase(row);
    });
  }

  listKnowledgeBases(): Promise<KnowledgeBase[]> {
    return this.#call(() =>
      this.#prepare<[], KnowledgeBaseRow>(`SELECT ${KNOWLEDGE_BASE_COLUMNS} FROM knowledge_bases ORDER BY id`)
        .all()
        .map(toKnowledgeBase),
    );
  }

  updateKnowledgeBase(id: string, changes: KnowledgeBaseChanges): Promise<KnowledgeBase> {
    return this.#call(() =>
      this.#database
        .transaction(() => {
          const row = this.#prepare<[string], KnowledgeBaseRow>(`SELECT ${KNOWLEDGE_BASE_COLUMNS} FROM knowledge_bases WHERE id = ?`).get(id);
          if (!row) throw new NotFoundError(`Knowledge base "${id}" does not exist`);
          const updated = changedKnowledgeBase(toKnowledgeBase(row), changes);
          this.#prepare('UPDATE knowledge_bases SET name = ?, base_url = ?, url_style = ?, anchor_style = ? WHERE id = ?').run(
            updated.name,
            updated.baseUrl ?? null,
            updated.urlStyle,
            updated.anchorStyle,
            id,
          );
          return updated;
        })
        .immediate(),
    );
  }

  setRole(kbId: string, userId: string, role: Role): Promise<void> {
    return this.#call(() => {
      this.#requireKnowledgeBase(kbId);
      if (!this.#prepare('SELECT 1 FROM users WHERE id = ?').get(userId)) {
        throw new NotFoundError(`User "${userId}" does not exist`);
      }
      this.#prepare(
          `INSERT INTO memberships (kb_id, user_id, role) VALUES (?, ?, ?)
           ON CONFLICT (kb_id, user_id) DO UPDATE SET role = excluded.role`,
        )
        .run(kbId, userId, role);
    });
  }

  removeRole(kbId: string, userId: string): Promise<void> {
    return this.#call(() => {
      this.#prepare('DELETE FROM memberships WHERE kb_id = ? AND user_id = ?').run(kbId, userId);
    });
  }

  getRole(kbId: string, userId: string): Promise<Role | undefined> {
    return this.#call(
      () =>
        this.#prepare<[string, string], { role: Role }>('SELECT role FROM memberships WHERE kb_id = ? AND user_id = ?')
          .get(kbId, userId)?.role,
    );
  }

  listMembers(kbId: string): Promise<(Membership & { email: string })[]> {
    return this.#call(() =>
      this.#prepare<[string], Membership & { email: string }>(
          `SELECT m.kb_id AS kbId, m.user_id AS userId, m.role AS role, u.email AS email
           FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.kb_id = ? ORDER BY u.email`,
        )
        .all(kbId),
    );
  }

  putDocument(input: DocumentInput): Promise<PutOutcome> {
    return this.#call(() =>
      this.#database
        .transaction(() => {
          this.#requireKnowledgeBase(input.kbId);
          return this.#putDocument(input);
        })
        .immediate(),
    );
  }

  putDocuments(inputs: readonly DocumentInput[]): Promise<BatchPutOutcome[]> {
    // A transaction function called inside another runs as a savepoint
    // (better-sqlite3): a document that throws is rolled back alone.
    const putOne = this.#database.transaction((input: DocumentInput) => this.#putDocument(input));
    return this.#call(() =>
      this.#database
        .transaction(() => {
          for (const kbId of new Set(inputs.map((input) => input.kbId))) this.#requireKnowledgeBase(kbId);
          return inputs.map((input): BatchPutOutcome => {
            try {
              return { outcome: putOne(input) };
            } catch (error) {
              const translated = translateError(error);
              // The database itself failing ends the batch: nothing of it is committed.
              if (translated instanceof StoreUnavailableError) throw translated;
              return { error: translated };
            }
          });
        })
        .immediate(),
    );
  }

  /** Creates or replaces one document, in the caller's transaction; its knowledge base exists. */
  #putDocument(input: DocumentInput): PutOutcome {
    const existing = this.#prepare<[string, string], { id: number; content_hash: string }>(
      'SELECT id, content_hash FROM documents WHERE kb_id = ? AND doc_id = ?',
    ).get(input.kbId, input.docId);
    if (existing?.content_hash === input.contentHash) return 'unchanged';
    if (existing) this.#deleteDocument(input.kbId, existing.id);
    this.#insertDocument(input);
    return existing ? 'updated' : 'created';
  }

  #insertDocument(input: DocumentInput): void {
    const documentId = this.#prepare(
        `INSERT INTO documents (kb_id, doc_id, title, description, url, route_url, route_slug, visibility, quotable, content_hash,
                                source_root, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        input.kbId,
        input.docId,
        input.title,
        input.description ?? null,
        input.url ?? null,
        input.route?.url ?? null,
        input.route?.slug ?? null,
        input.visibility,
        input.quotable ? 1 : 0,
        input.contentHash,
        input.sourceRoot ?? null,
        this.#now(),
      ).lastInsertRowid;
    this.#insertReaders(Number(documentId), input.readers);
    const insertChunk = this.#prepare(
      `INSERT INTO chunks (document_id, kb_id, ordinal, heading_path, anchor, text, title_length, description_length, heading_length, body_length)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const chunkIds = input.chunks.map(
      (chunk, ordinal) =>
        Number(
          insertChunk.run(
            documentId,
            input.kbId,
            ordinal,
            JSON.stringify(chunk.headingPath),
            chunk.anchor ?? null,
            chunk.text,
            ...chunk.index.lengths,
          ).lastInsertRowid,
        ),
    );
    this.#writeIndex(
      input.kbId,
      Number(documentId),
      input.analysisVersion,
      input.chunks.map((chunk, position) => ({ chunkId: chunkIds[position]!, index: chunk.index })),
      input.page,
    );
  }

  /**
   * Writes the postings of a document's passages, its field-length sums
   * and analysis version, and the knowledge base's statistics, in the
   * caller's transaction; the document has no postings yet, and its passages
   * hold their field lengths.
   */
  #writeIndex(
    kbId: string,
    documentId: number,
    analysisVersion: string,
    passages: readonly { chunkId: number; index: IndexedPassage }[],
    page: IndexedPage,
  ): void {
    const insertPagePosting = this.#prepare(
      `INSERT INTO page_postings (kb_id, term, document_id, tf_title, tf_description, tf_lead, tf_headings, tf_body, tf_path)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const [term, frequencies] of page.terms) insertPagePosting.run(kbId, term, documentId, ...frequencies);
    this.#prepare(
      `UPDATE documents SET page_title_length = ?, page_description_length = ?, page_lead_length = ?, page_headings_length = ?,
         page_body_length = ?, page_path_length = ? WHERE id = ?`,
    ).run(...page.lengths, documentId);
    const insertPosting = this.#prepare(
      `INSERT INTO postings (kb_id, term, chunk_id, document_id, tf_title, tf_description, tf_heading, tf_body)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const sums = [0, 0, 0, 0];
    for (const { chunkId, index } of passages) {
      for (const [term, frequencies] of index.terms) insertPosting.run(kbId, term, chunkId, documentId, ...frequencies);
      index.lengths.forEach((length, field) => (sums[field] = sums[field]! + length));
    }
    const previous = this.#prepare<[number], number>('SELECT chunk_count FROM documents WHERE id = ?').pluck().get(documentId) ?? 0;
    const count = this.#prepare<[number], number>('SELECT COUNT(*) FROM chunks WHERE document_id = ?').pluck().get(documentId) ?? 0;
    this.#prepare(
      `UPDATE documents SET chunk_count = ?, title_length_sum = ?, description_length_sum = ?, heading_length_sum = ?, body_length_sum = ?,
         analysis_version = ? WHERE id = ?`,
    ).run(count, ...sums, analysisVersion, documentId);
    this.#adjustStats(kbId, count - previous);
  }

  #insertReaders(documentId: number, readers: readonly string[]): void {
    const insertReader = this.#prepare('INSERT INTO document_readers (document_id, user_id) VALUES (?, ?)');
    for (const userId of new Set(readers)) insertReader.run(documentId, userId);
  }

  #deleteDocument(kbId: string, documentId: number): void {
    const totals = this.#prepare<[number], { count: number }>('SELECT chunk_count AS count FROM documents WHERE id = ?').get(documentId);
    this.#prepare('DELETE FROM postings WHERE chunk_id IN (SELECT id FROM chunks WHERE document_id = ?)').run(documentId);
    this.#prepare('DELETE FROM page_postings WHERE document_id = ?').run(documentId);
    this.#prepare('DELETE FROM documents WHERE id = ?').run(documentId);
    if (totals) this.#adjustStats(kbId, -totals.count);
  }

  /**
   * Adds a change of a knowledge base's passage count to its statistics and
   * bumps its index version, in the caller's transaction: every change of the
   * postings goes through here, which is what tells the in-memory indexes of
   * other connections (retrieval/index-cache.ts) that they are stale.
   */
  #adjustStats(kbId: string, chunks: number): void {
    this.#prepare('UPDATE index_stats SET chunk_count = chunk_count + ?, version = version + 1 WHERE kb_id = ?').run(chunks, kbId);
  }

  #requireKnowledgeBase(kbId: string): void {
    if (!this.#prepare('SELECT 1 FROM knowledge_bases WHERE id = ?').get(kbId)) {
      throw new NotFoundError(`Knowledge base "${kbId}" does not exist`);
    }
  }

  getDocument(kbId: string, docId: string): Promise<DocumentRecord | undefined> {
    return this.#call(() => {
      const row = this.#prepare<[string, string], DocumentRow>(`SELECT ${DOCUMENT_COLUMNS} FROM documents d WHERE d.kb_id = ? AND d.doc_id = ?`)
        .get(kbId, docId);
      return row && toDocument(row);
    });
  }

  listDocuments(kbId: string): Promise<DocumentRecord[]> {
    return this.#call(() =>
      this.#prepare<[string], DocumentRow>(`SELECT ${DOCUMENT_COLUMNS} FROM documents d WHERE d.kb_id = ? ORDER BY d.doc_id`)
        .all(kbId)
        .map(toDocument),
    );
  }

  setDocumentAccess(
    kbId: string,
    docId: string,
    access: { visibility: Visibility; readers: string[]; quotable: boolean },
  ): Promise<void> {
    return this.#call(() =>
      this.#database
        .transaction(() => {
          const row = this.#prepare<[string, string], { id: number }>('SELECT id FROM documents WHERE kb_id = ? AND doc_id = ?')
            .get(kbId, docId);
          if (!row) throw new NotFoundError(`Document "${docId}" does not exist in knowledge base "${kbId}"`);
          this.#prepare('UPDATE documents SET visibility = ?, quotable = ?, updated_at = ? WHERE id = ?')
            .run(access.visibility, access.quotable ? 1 : 0, this.#now(), row.id);
          this.#prepare('DELETE FROM document_readers WHERE document_id = ?').run(row.id);
          this.#insertReaders(row.id, access.readers);
        })
        .immediate(),
    );
  }

  setDocumentUrls(kbId: string, urls: readonly { docId: string; url?: string }[]): Promise<void> {
    return this.#call(() =>
      this.#database
        .transaction(() => {
          const update = this.#prepare('UPDATE documents SET url = ? WHERE kb_id = ? AND doc_id = ?');
          for (const entry of urls) update.run(entry.url ?? null, kbId, entry.docId);
        })
        .immediate(),
    );
  }

  removeDocument(kbId: string, docId: string): Promise<boolean> {
    return this.#call(() =>
      this.#database
        .transaction(() => {
          const row = this.#prepare<[string, string], { id: number }>('SELECT id FROM documents WHERE kb_id = ? AND doc_id = ?')
            .get(kbId, docId);
          if (!row) return false;
          this.#deleteDocument(kbId, row.id);
          return true;
        })
        .immediate(),
    );
  }

  reachStatistics(reach: Reach): Promise<ReachStatistics> {
    return this.#call(() => this.#index.reachStatistics(reach));
  }

  readIndex(kbId: string, maxPostings: number): Promise<KnowledgeBaseIndex | undefined> {
    return this.#call(() => this.#index.readIndex(kbId, maxPostings));
  }

  readTermIndex(kbId: string, terms: readonly string[]): Promise<KnowledgeBaseIndex> {
    return this.#call(() => this.#index.readTermIndex(kbId, terms));
  }

  passagesById(kbId: string, chunkIds: readonly number[]): Promise<StoredPassage[]> {
    return this.#call(() => this.#index.passagesById(kbId, chunkIds));
  }

  listStaleDocuments(analysisVersion: string): Promise<{ kbId: string; docId: string }[]> {
    return this.#call(() =>
      this.#prepare<[string], { kbId: string; docId: string }>(
        `SELECT kb_id AS kbId, doc_id AS docId FROM documents
         WHERE analysis_version IS NULL OR analysis_version <> ? ORDER BY kb_id, doc_id`,
      ).all(analysisVersion),
    );
  }

  readIndexableDocument(kbId: string, docId: string): Promise<{ title: string; description?: string; passages: IndexablePassage[] } | undefined> {
    return this.#call(() => {
      const document = this.#prepare<[string, string], { id: number; title: string; description: string | null }>(
        'SELECT id, title, description FROM documents WHERE kb_id = ? AND doc_id = ?',
      ).get(kbId, docId);
      if (!document) return undefined;
      const passages = this.#prepare<[number], { chunkId: number; headingPath: string; text: string }>(
        'SELECT id AS chunkId, heading_path AS headingPath, text FROM chunks WHERE document_id = ? ORDER BY ordinal',
      )
        .all(document.id)
        .map((row) => ({ chunkId: row.chunkId, headingPath: JSON.parse(row.headingPath) as string[], text: row.text }));
      return { title: document.title, ...(document.description === null ? {} : { description: document.description }), passages };
    });
  }

  reindexDocument(
    kbId: string,
    docId: string,
    analysisVersion: string,
    passages: readonly { chunkId: number; index: IndexedPassage }[],
    page: IndexedPage,
  ): Promise<void> {
    return this.#call(() =>
      this.#database
        .transaction(() => {
          const document = this.#prepare<[string, string], { id: number }>('SELECT id FROM documents WHERE kb_id = ? AND doc_id = ?')
            .get(kbId, docId);
          if (!document) throw new NotFoundError(`Document "${docId}" does not exist in knowledge base "${kbId}"`);
          const own = this.#prepare<[number], number>('SELECT id FROM chunks WHERE document_id = ?').pluck().all(document.id);
          const given = new Set(passages.map((passage) => passage.chunkId));
          if (own.length !== given.size || own.some((chunkId) => !given.has(chunkId))) {
            throw new ConflictError(`The passages of "${docId}" changed while it was re-indexed`);
          }
          this.#prepare('DELETE FROM postings WHERE chunk_id IN (SELECT id FROM chunks WHERE document_id = ?)').run(document.id);
          this.#prepare('DELETE FROM page_postings WHERE document_id = ?').run(document.id);
          const updateLengths = this.#prepare('UPDATE chunks SET title_length = ?, description_length = ?, heading_length = ?, body_length = ? WHERE id = ?');
          for (const { chunkId, index } of passages) updateLengths.run(...index.lengths, chunkId);
          this.#writeIndex(kbId, document.id, analysisVersion, passages, page);
        })
        .immediate(),
    );
  }

  passagesOf(reach: Reach, docId: string, heading?: string): Promise<ScoredPassage[]> {
    return this.#call(() => {
      const rows = this.#prepare<Record<string, unknown>, PassageRow>(
          `SELECT c.id AS chunkId, 0 AS score, ${PASSAGE_COLUMNS}
           FROM chunks c JOIN documents d ON d.id = c.document_id
           WHERE d.doc_id = @docId AND ${REACH_FILTER}
             AND (@heading IS NULL OR EXISTS (SELECT 1 FROM json_each(c.heading_path) h WHERE h.value = @heading))
           ORDER BY c.ordinal`,
        )
        .all({ docId, heading: heading ?? null, ...sqliteReachParameters(reach) });
      return rows.map((row) => ({ ...toPassage(reach.kbId, row), score: 0 }));
    });
  }

  countPassages(reach: Reach, docId: string): Promise<number> {
    return this.#call(() => {
      const row = this.#prepare<Record<string, unknown>, { count: number }>(
        `SELECT COUNT(*) AS count FROM chunks c JOIN documents d ON d.id = c.document_id
         WHERE d.doc_id = @docId AND ${REACH_FILTER}`,
      ).get({ docId, ...sqliteReachParameters(reach) });
      return row?.count ?? 0;
    });
  }

  addFeedback(input: FeedbackInput): Promise<number> {
    return this.#call(() =>
      this.#database
        .transaction(() => {
          this.#requireKnowledgeBase(input.kbId);
          const id = Number(
            this.#prepare(
              `INSERT INTO feedback (kb_id, kind, created_at, question, provenance, rating, reason, comment)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
            ).run(
              input.kbId,
              input.kind,
              input.createdAt,
              input.question,
              input.provenance,
              input.rating ?? null,
              input.reason ?? null,
              input.comment ?? null,
            ).lastInsertRowid,
          );
          const insertPassage = this.#prepare('INSERT INTO feedback_passages (feedback_id, ordinal, doc_id, chunk_id, version) VALUES (?, ?, ?, ?, ?)');
          input.passages.forEach((passage, ordinal) => insertPassage.run(id, ordinal, passage.docId, passage.chunkId, passage.version));
          return id;
        })
        .immediate(),
    );
  }

  listFeedback(reach: Reach, page: { limit: number; before?: FeedbackCursor }): Promise<FeedbackRecord[]> {
    return this.#call(() => {
      const rows = this.#prepare<Record<string, unknown>, FeedbackRow>(
        `SELECT ${FEEDBACK_COLUMNS} FROM feedback
         WHERE kb_id = @kbId AND (@beforeAt IS NULL OR created_at < @beforeAt OR (created_at = @beforeAt AND id < @beforeId))
         ORDER BY created_at DESC, id DESC LIMIT @limit`,
      ).all({ kbId: reach.kbId, beforeAt: page.before?.createdAt ?? null, beforeId: page.before?.id ?? null, limit: page.limit });
      const passages = this.#prepare<Record<string, unknown>, FeedbackPassageRow>(
        `SELECT p.feedback_id, p.doc_id, p.chunk_id, p.version,
                (SELECT d.title FROM documents d WHERE d.doc_id = p.doc_id AND ${REACH_FILTER}) AS title
         FROM feedback_passages p WHERE p.feedback_id IN (SELECT value FROM json_each(@ids))
         ORDER BY p.feedback_id, p.ordinal`,
      ).all({ ids: JSON.stringify(rows.map((row) => row.id)), ...sqliteReachParameters(reach) });
      return feedbackRecords(reach.kbId, rows, passages);
    });
  }

  replaceFaq(kbId: string, pairs: FaqPair[]): Promise<void> {
    return this.#call(() =>
      this.#database
        .transaction(() => {
          this.#requireKnowledgeBase(kbId);
          this.#prepare('DELETE FROM faq_pairs WHERE kb_id = ?').run(kbId);
          const insert = this.#prepare(
            'INSERT INTO faq_pairs (kb_id, ordinal, question, answer, sources) VALUES (?, ?, ?, ?, ?)',
          );
          pairs.forEach((pair, ordinal) =>
            insert.run(kbId, ordinal, pair.question, pair.answer, JSON.stringify(pair.sources)),
          );
        })
        .immediate(),
    );
  }

  listFaq(kbId: string): Promise<FaqPair[]> {
    return this.#call(() =>
      this.#prepare<[string], { question: string; answer: string; sources: string }>(
          'SELECT question, answer, sources FROM faq_pairs WHERE kb_id = ? ORDER BY ordinal',
        )
        .all(kbId)
        .map((row) => ({
          question: row.question,
          answer: row.answer,
          sources: JSON.parse(row.sources) as FaqPair['sources'],
        })),
    );
  }

  ping(): Promise<void> {
    return this.#call(() => {
      this.#prepare('SELECT 1').get();
    });
  }

  async close(): Promise<void> {
    if (this.#database.open) this.#database.close();
  }
}

function translateError(error: unknown): Error {
  if (!(error instanceof Error)) return new Error(String(error));
  if (error instanceof NotFoundError || error instanceof ConflictError || error instanceof StoreUnavailableError) {
    return error;
  }
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT_UNIQUE')) {
    return new ConflictError(error.message, { cause: error });
  }
  if (code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return new ConflictError(error.message, { cause: error });
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_CANTOPEN' || /connection is not open|database is closed/i.test(error.message)) {
    return new StoreUnavailableError(error.message, { cause: error });
  }
  return error;
}
