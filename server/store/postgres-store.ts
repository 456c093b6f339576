import pg, { type CustomTypesConfig, type Pool, type PoolClient, type QueryResultRow } from 'pg';
import { translatePostgresError } from './postgres-errors.ts';
import { migratePostgres } from './postgres-migrate.ts';
import { rateLimitRepository, sessionRepository, settingsRepository, tokenRepository } from './shared-repositories.ts';
import { numberedPlaceholders, POSTGRES_DIALECT, type SqlExecutor } from './sql-executor.ts';
import type { IndexedPage, IndexedPassage, KnowledgeBaseIndex, ReachStatistics } from './index-data.ts';
import {
  POSTGRES_PASSAGE_COLUMNS,
  POSTGRES_REACH_FILTER,
  postgresReachParameters,
  readPostgresIndex,
  readPostgresPassagesById,
  readPostgresTermIndex,
  readReachStatistics,
  toPostgresPassage,
  type PostgresPassageRow,
  type Queryable,
} from './postgres-index.ts';
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

/** Connection pool settings of the PostgreSQL store (README, "PostgreSQL"). */
export interface PostgresPoolSettings {
  /** Most connections the pool opens (default 10). */
  maxConnections?: number;
  /** Longest wait for a connection, milliseconds (default 5,000): then the call fails as unavailable. */
  connectionTimeoutMs?: number;
  /** An idle connection is closed after this many milliseconds (default 30,000). */
  idleTimeoutMs?: number;
  /** `statement_timeout` of every connection, milliseconds (default 5,000; 0 = none). */
  statementTimeoutMs?: number;
  /**
   * Longest wait for a query's reply, measured by this process, milliseconds
   * (default 5,000; 0 = none): then the query fails as unavailable and its
   * connection is dropped. `statement_timeout` cannot do this: it is enforced
   * by the server, and a database that accepts connections but never answers
   * (a hung server, a black-holed network path) never saw the query.
   */
  queryTimeoutMs?: number;
}

/** Options of {@link openPostgresStore}. */
export interface PostgresStoreOptions extends PostgresPoolSettings {
  /** `postgres://user:password@host:port/database?...` (libpq URL, as `DATABASE_URL`). */
  url: string;
  /**
   * Schema holding the tables (the connections' `search_path`), created when
   * missing; default: the database's default search path (`public`).
   * Lowercase letters, digits and `_` only.
   */
  schema?: string;
  /** Clock in epoch milliseconds (record times); injectable for tests. */
  now?: () => number;
  /** `application_name` shown in `pg_stat_activity` (default `kb-widget`). */
  applicationName?: string;
}

/** Pool defaults: one server process, a handful of concurrent questions, nothing waits long. */
export const POSTGRES_POOL_DEFAULTS: Required<PostgresPoolSettings> = {
  maxConnections: 10,
  connectionTimeoutMs: 5_000,
  idleTimeoutMs: 30_000,
  statementTimeoutMs: 5_000,
  queryTimeoutMs: 5_000,
};

/** Unquoted identifiers only: the same name in `search_path` and in `CREATE SCHEMA`. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Type parsers of the store's connections: `bigint` (ids, epoch-millisecond
 * times, counts) as a JS number, every value the store keeps being below
 * 2^53; every other type as node-postgres parses it.
 */
export const POSTGRES_TYPES: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8 && format !== 'binary'
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as CustomTypesConfig['getTypeParser'],
};

/**
 * Opens the PostgreSQL store: a `pg.Pool` (limits in {@link PostgresPoolSettings},
 * `statement_timeout` set on each connection, `application_name`), whose
 * schema is migrated lazily, on the first call, behind one promise
 * (postgres-migrate.ts; a failed attempt is retried by the next call, so a
 * server started before its database recovers by itself). Opening is
 * synchronous and never fails for an unreachable database: calls do, with
 * StoreUnavailableError.
 *
 * @throws Error for a malformed `schema` name
 */
export function openPostgresStore(options: PostgresStoreOptions): Store {
  if (options.schema !== undefined && !SCHEMA_NAME.test(options.schema)) {
    throw new Error(`Schema name "${options.schema}" is not allowed: use lowercase letters, digits and _ only`);
  }
  const statementTimeoutMs = options.statementTimeoutMs ?? POSTGRES_POOL_DEFAULTS.statementTimeoutMs;
  const queryTimeoutMs = options.queryTimeoutMs ?? POSTGRES_POOL_DEFAULTS.queryTimeoutMs;
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.maxConnections ?? POSTGRES_POOL_DEFAULTS.maxConnections,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? POSTGRES_POOL_DEFAULTS.connectionTimeoutMs,
    idleTimeoutMillis: options.idleTimeoutMs ?? POSTGRES_POOL_DEFAULTS.idleTimeoutMs,
    statement_timeout: statementTimeoutMs,
    // node-postgres rejects a query with "Query read timeout" after this; the
    // failed connection is then released with its error, so the pool drops it.
    ...(queryTimeoutMs > 0 ? { query_timeout: queryTimeoutMs } : {}),
    // A transaction left open by a stuck process must not hold its locks for long.
    idle_in_transaction_session_timeout: Math.max(statementTimeoutMs * 2, 10_000),
    application_name: options.applicationName ?? 'kb-widget',
    ...(options.schema === undefined ? {} : { options: `-c search_path=${options.schema}` }),
    types: POSTGRES_TYPES,
    keepAlive: true,
    // A command line process exits once its work is done, idle connections or not.
    allowExitOnIdle: true,
  });
  // An idle connection the server drops (restart, pg_terminate_backend) is
  // reported here and removed from the pool; without a listener the process would crash.
  pool.on('error', () => undefined);
  return new PostgresStore(pool, options);
}

interface DocumentRow extends DocumentRowBase {
  id: number;
  quotable: boolean;
  readers: string[] | null;
}

function toDocument(row: DocumentRow): DocumentRecord {
  return documentRecord(row, { readers: row.readers ?? [], quotable: row.quotable });
}

const USER_COLUMNS = 'id, email, name, created_at AS "createdAt"';

const DOCUMENT_COLUMNS = `d.id, d.kb_id, d.doc_id, d.title, d.description, d.url, d.route_url, d.route_slug, d.visibility, d.quotable,
  d.content_hash, d.source_root, d.updated_at, d.chunk_count, (SELECT array_agg(r.user_id) FROM document_readers r WHERE r.document_id = d.id) AS readers`;

/** Postings inserted per statement (arrays of this many rows per column). */
const POSTINGS_PER_INSERT = 5_000;

/** The repositories written once for both backends (shared-repositories.ts), taken as they are. */
interface PostgresStore extends RateLimitRepository, SessionRepository, SettingsRepository, TokenRepository {}

class PostgresStore implements Store {
  readonly #pool: Pool;
  readonly #now: () => number;
  readonly #schema: string | undefined;
  #migrated: Promise<void> | undefined;
  #closed = false;

  constructor(pool: Pool, options: PostgresStoreOptions) {
    this.#pool = pool;
    this.#now = options.now ?? Date.now;
    this.#schema = options.schema;
    // Start migrating now; a failure here is reported by the first call instead.
    this.#ready().catch(() => undefined);
    const all = <Row>(text: string, params: readonly unknown[] = []) =>
      this.#call(async (database) => (await database.query<Row & QueryResultRow>(numberedPlaceholders(text), [...params])).rows as Row[]);
    const sql: SqlExecutor = {
      dialect: POSTGRES_DIALECT,
      all,
      get: async <Row>(text: string, params?: readonly unknown[]) => (await all<Row>(text, params))[0],
      run: (text: string, params: readonly unknown[] = []) =>
        this.#call(async (database) => (await database.query(numberedPlaceholders(text), [...params])).rowCount ?? 0),
    };
    Object.assign(this, rateLimitRepository(sql), sessionRepository(sql), settingsRepository(sql), tokenRepository(sql));
  }

  /** Resolves once the schema is migrated; a failed attempt is forgotten so the next call tries again. */
  #ready(): Promise<void> {
    if (this.#closed) return Promise.reject(new StoreUnavailableError('The store is closed'));
    this.#migrated ??= migratePostgres(this.#pool, {
      ...(this.#schema === undefined ? {} : { schema: this.#schema }),
    }).then(
      () => undefined,
      (error: unknown) => {
        this.#migrated = undefined;
        throw translatePostgresError(error);
      },
    );
    return this.#migrated;
  }

  /** Runs `work` on the pool (one statement at a time, autocommit), translating failures. */
  async #call<T>(work: (database: Queryable) => Promise<T>): Promise<T> {
    try {
      await this.#ready();
      return await work(this.#pool);
    } catch (error) {
      throw this.#closed ? new StoreUnavailableError('The store is closed', { cause: error }) : translatePostgresError(error);
    }
  }

  /**
   * Runs `work` in one transaction on one connection: COMMIT when it
   * resolves, ROLLBACK when it throws (the previous state stays intact). A
   * connection that failed is discarded, not returned to the pool.
   *
   * @param options.snapshot a `REPEATABLE READ READ ONLY` transaction: every
   *   query of `work` sees one snapshot, taken at its first query, and none writes
   */
  async #transaction<T>(work: (client: PoolClient) => Promise<T>, options: { snapshot?: boolean } = {}): Promise<T> {
    return this.#call(async () => {
      const client = await this.#pool.connect();
      // A checked-out client whose connection drops emits 'error' besides
      // failing its query; the pool listens only while it is idle, so
      // without this listener the process would crash on a database restart.
      const ignoreDrop = () => undefined;
      client.on('error', ignoreDrop);
      let failed: Error | undefined;
      try {
        await client.query(options.snapshot ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'BEGIN');
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        failed = error instanceof Error ? error : new Error(String(error));
        // A connection that failed as unavailable (dropped, or silent past the
        // query timeout) is discarded below: the server rolls back a
        // transaction whose connection ends, and a ROLLBACK sent on it would
        // only wait out another timeout.
        if (!(translatePostgresError(failed) instanceof StoreUnavailableError)) await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.off('error', ignoreDrop);
        client.release(failed !== undefined && translatePostgresError(failed) instanceof StoreUnavailableError ? failed : undefined);
      }
    });
  }

  createUser(input: { email: string; name: string }): Promise<User> {
    return this.#call(async (database) => {
      const user: User = { id: newId('usr'), email: input.email.trim().toLowerCase(), name: input.name, createdAt: this.#now() };
      await database.query('INSERT INTO users (id, email, name, created_at) VALUES ($1, $2, $3, $4)', [
        user.id,
        user.email,
        user.name,
        user.createdAt,
      ]);
      return user;
    });
  }

  getUser(id: string): Promise<User | undefined> {
    return this.#call(async (database) => (await database.query<User>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1`, [id])).rows[0]);
  }

  findUserByEmail(email: string): Promise<User | undefined> {
    return this.#call(
      async (database) =>
        (await database.query<User>(`SELECT ${USER_COLUMNS} FROM users WHERE email = $1`, [email.trim().toLowerCase()])).rows[0],
    );
  }

  listUsers(): Promise<User[]> {
    return this.#call(async (database) => (await database.query<User>(`SELECT ${USER_COLUMNS} FROM users ORDER BY email`)).rows);
  }

  removeUser(id: string): Promise<void> {
    return this.#call(async (database) => {
      await database.query('DELETE FROM users WHERE id = $1', [id]);
    });
  }

  setPasswordHash(userId: string, passwordHash: string): Promise<void> {
    return this.#call(async (database) => {
      const { rowCount } = await database.query('UPDATE users SET password_hash = $1 WHERE id = $2', [passwordHash, userId]);
      if (rowCount === 0) throw new NotFoundError(`User "${userId}" does not exist`);
    });
  }

  getPasswordHash(userId: string): Promise<string | undefined> {
    return this.#call(
      async (database) =>
        (await database.query<{ password_hash: string | null }>('SELECT password_hash FROM users WHERE id = $1', [userId])).rows[0]
          ?.password_hash ?? undefined,
    );
  }

  createKnowledgeBase(input: Parameters<Store['createKnowledgeBase']>[0]): Promise<KnowledgeBase> {
    return this.#transaction(async (client) => {
      const knowledgeBase = newKnowledgeBase(input, this.#now());
      await client.query(
        'INSERT INTO knowledge_bases (id, name, created_at, base_url, url_style, anchor_style) VALUES ($1, $2, $3, $4, $5, $6)',
        [
          knowledgeBase.id,
          knowledgeBase.name,
          knowledgeBase.createdAt,
          knowledgeBase.baseUrl ?? null,
          knowledgeBase.urlStyle,
          knowledgeBase.anchorStyle,
        ],
      );
      await client.query(
        'INSERT INTO index_stats (kb_id, chunk_count, body_length_sum, heading_length_sum) VALUES ($1, 0, 0, 0)',
        [input.id],
      );
      return knowledgeBase;
    });
  }

  getKnowledgeBase(id: string): Promise<KnowledgeBase | undefined> {
    return this.#call(async (database) => {
      const row = (await database.query<KnowledgeBaseRow>(`SELECT ${KNOWLEDGE_BASE_COLUMNS} FROM knowledge_bases WHERE id = $1`, [id])).rows[0];
      return row && toKnowledgeBase(row);
    });
  }

  listKnowledgeBases(): Promise<KnowledgeBase[]> {
    return this.#call(async (database) =>
      (await database.query<KnowledgeBaseRow>(`SELECT ${KNOWLEDGE_BASE_COLUMNS} FROM knowledge_bases ORDER BY id`)).rows.map(toKnowledgeBase),
    );
  }

  updateKnowledgeBase(id: string, changes: KnowledgeBaseChanges): Promise<KnowledgeBase> {
    return this.#transaction(async (client) => {
      const row = (
        await client.query<KnowledgeBaseRow>(`SELECT ${KNOWLEDGE_BASE_COLUMNS} FROM knowledge_bases WHERE id = $1 FOR UPDATE`, [id])
      ).rows[0];
      if (!row) throw new NotFoundError(`Knowledge base "${id}" does not exist`);
      const updated = changedKnowledgeBase(toKnowledgeBase(row), changes);
      await client.query('UPDATE knowledge_bases SET name = $1, base_url = $2, url_style = $3, anchor_style = $4 WHERE id = $5', [
        updated.name,
        updated.baseUrl ?? null,
        updated.urlStyle,
        updated.anchorStyle,
        id,
      ]);
      return updated;
    });
  }

  setRole(kbId: string, userId: string, role: Role): Promise<void> {
    return this.#call(async (database) => {
      await requireKnowledgeBase(database, kbId);
      if ((await database.query('SELECT 1 FROM users WHERE id = $1', [userId])).rowCount === 0) {
        throw new NotFoundError(`User "${userId}" does not exist`);
      }
      // A user or knowledge base removed in between fails the foreign key, as it would have a moment later.
      await database.query(
        `INSERT INTO memberships (kb_id, user_id, role) VALUES ($1, $2, $3)
         ON CONFLICT (kb_id, user_id) DO UPDATE SET role = excluded.role`,
        [kbId, userId, role],
      );
    });
  }

  removeRole(kbId: string, userId: string): Promise<void> {
    return this.#call(async (database) => {
      await database.query('DELETE FROM memberships WHERE kb_id = $1 AND user_id = $2', [kbId, userId]);
    });
  }

  getRole(kbId: string, userId: string): Promise<Role | undefined> {
    return this.#call(
      async (database) =>
        (await database.query<{ role: Role }>('SELECT role FROM memberships WHERE kb_id = $1 AND user_id = $2', [kbId, userId])).rows[0]
          ?.role,
    );
  }

  listMembers(kbId: string): Promise<(Membership & { email: string })[]> {
    return this.#call(
      async (database) =>
        (
          await database.query<Membership & { email: string }>(
            `SELECT m.kb_id AS "kbId", m.user_id AS "userId", m.role AS role, u.email AS email
             FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.kb_id = $1 ORDER BY u.email`,
            [kbId],
          )
        ).rows,
    );
  }

  putDocument(input: DocumentInput): Promise<PutOutcome> {
    return this.#transaction(async (client): Promise<PutOutcome> => {
      // The knowledge base's statistics row, locked: writers of one knowledge base take turns
      // (as SQLite's one writer does), so its counts stay exact and re-ingests never interleave.
      await lockKnowledgeBase(client, input.kbId);
      return this.#putDocument(client, input);
    });
  }

  putDocuments(inputs: readonly DocumentInput[]): Promise<BatchPutOutcome[]> {
    return this.#transaction(async (client) => {
      // Locked in a fixed order, so that two batches over the same knowledge bases cannot deadlock.
      for (const kbId of [...new Set(inputs.map((input) => input.kbId))].sort()) await lockKnowledgeBase(client, kbId);
      const outcomes: BatchPutOutcome[] = [];
      for (const input of inputs) {
        await client.query('SAVEPOINT put_document');
        try {
          outcomes.push({ outcome: await this.#putDocument(client, input) });
          await client.query('RELEASE SAVEPOINT put_document');
        } catch (error) {
          const translated = translatePostgresError(error);
          // The database itself failing ends the batch: nothing of it is committed.
          if (translated instanceof StoreUnavailableError) throw error;
          await client.query('ROLLBACK TO SAVEPOINT put_document');
          outcomes.push({ error: translated });
        }
      }
      return outcomes;
    });
  }

  /** Creates or replaces one document, in the caller's transaction, its knowledge base locked. */
  async #putDocument(client: PoolClient, input: DocumentInput): Promise<PutOutcome> {
    const existing = (
      await client.query<{ id: number; content_hash: string }>(
        'SELECT id, content_hash FROM documents WHERE kb_id = $1 AND doc_id = $2',
        [input.kbId, input.docId],
      )
    ).rows[0];
    if (existing?.content_hash === input.contentHash) return 'unchanged';
    if (existing) await this.#deleteDocument(client, input.kbId, existing.id);
    await this.#insertDocument(client, input);
    return existing ? 'updated' : 'created';
  }

  async #insertDocument(client: PoolClient, input: DocumentInput): Promise<void> {
    const documentId = (
      await client.query<{ id: number }>(
        `INSERT INTO documents (kb_id, doc_id, title, visibility, quotable, content_hash, source_root, updated_at,
                                description, url, route_url, route_slug)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id`,
        [
          input.kbId,
          input.docId,
          input.title,
          input.visibility,
          input.quotable,
          input.contentHash,
          input.sourceRoot ?? null,
          this.#now(),
          input.description ?? null,
          input.url ?? null,
          input.route?.url ?? null,
          input.route?.slug ?? null,
        ],
      )
    ).rows[0]!.id;
    await insertReaders(client, documentId, input.readers);
    let chunkIds: number[] = [];
    if (input.chunks.length > 0) {
      // One statement for the passages (arrays unnested in ordinal order).
      const chunkRows = await client.query<{ id: number; ordinal: number }>(
        `INSERT INTO chunks (document_id, kb_id, ordinal, heading_path, anchor, text, title_length, description_length, heading_length, body_length)
         SELECT $1, $2, c.ordinal - 1,
                ARRAY(SELECT h.value FROM jsonb_array_elements_text(c.heading_path) WITH ORDINALITY AS h(value, position) ORDER BY h.position),
                c.anchor, c.text, 0, 0, 0, 0
         FROM unnest($3::jsonb[], $4::text[], $5::text[]) WITH ORDINALITY AS c(heading_path, anchor, text, ordinal)
         ORDER BY c.ordinal
         RETURNING id, ordinal`,
        [
          documentId,
          input.kbId,
          input.chunks.map((chunk) => JSON.stringify(chunk.headingPath)),
          input.chunks.map((chunk) => chunk.anchor ?? null),
          input.chunks.map((chunk) => chunk.text),
        ],
      );
      const byOrdinal = new Map(chunkRows.rows.map((row) => [row.ordinal, row.id]));
      chunkIds = input.chunks.map((_, ordinal) => byOrdinal.get(ordinal)!);
    }
    await this.#writeIndex(
      client,
      input.kbId,
      documentId,
      input.analysisVersion,
      input.chunks.map((chunk, position) => ({ chunkId: chunkIds[position]!, index: chunk.index })),
      input.page,
    );
  }

  /**
   * Writes the postings of a document's passages (in batches) and their field
   * lengths, its sums and analysis version, and the knowledge base's
   * statistics, in the caller's transaction; the document has no postings yet.
   */
  async #writeIndex(
    client: PoolClient,
    kbId: string,
    documentId: number,
    analysisVersion: string,
    passages: readonly { chunkId: number; index: IndexedPassage }[],
    page: IndexedPage,
  ): Promise<void> {
    const pageTerms = [...page.terms];
    if (pageTerms.length > 0) {
      await client.query(
        `INSERT INTO page_postings (kb_id, term, document_id, tf_title, tf_description, tf_lead, tf_headings, tf_body, tf_path)
         SELECT $1, p.term, $2, p.a, p.b, p.c, p.d, p.e, p.f
         FROM unnest($3::text[], $4::int[], $5::int[], $6::int[], $7::int[], $8::int[], $9::int[]) AS p(term, a, b, c, d, e, f)`,
        [kbId, documentId, pageTerms.map(([term]) => term), ...[0, 1, 2, 3, 4, 5].map((field) => pageTerms.map(([, counts]) => counts[field]!))],
      );
    }
    await client.query(
      `UPDATE documents SET page_title_length = $1, page_description_length = $2, page_lead_length = $3, page_headings_length = $4,
         page_body_length = $5, page_path_length = $6 WHERE id = $7`,
      [...page.lengths, documentId],
    );
    const postings = {
      term: [] as string[],
      chunkId: [] as number[],
      title: [] as number[],
      description: [] as number[],
      heading: [] as number[],
      body: [] as number[],
    };
    const flush = async (): Promise<void> => {
      if (postings.term.length === 0) return;
      await client.query(
        `INSERT INTO postings (kb_id, term, chunk_id, document_id, tf_title, tf_description, tf_heading, tf_body)
         SELECT $1, p.term, p.chunk_id, $2, p.tf_title, p.tf_description, p.tf_heading, p.tf_body
         FROM unnest($3::text[], $4::bigint[], $5::int[], $6::int[], $7::int[], $8::int[])
              AS p(term, chunk_id, tf_title, tf_description, tf_heading, tf_body)`,
        [kbId, documentId, postings.term, postings.chunkId, postings.title, postings.description, postings.heading, postings.body],
      );
      for (const column of Object.values(postings)) column.length = 0;
    };
    const sums = [0, 0, 0, 0];
    for (const { chunkId, index } of passages) {
      for (const [term, [title, description, heading, body]] of index.terms) {
        postings.term.push(term);
        postings.chunkId.push(chunkId);
        postings.title.push(title);
        postings.description.push(description);
        postings.heading.push(heading);
        postings.body.push(body);
      }
      index.lengths.forEach((length, field) => (sums[field] = sums[field]! + length));
      if (postings.term.length >= POSTINGS_PER_INSERT) await flush();
    }
    await flush();
    if (passages.length > 0) {
      await client.query(
        `UPDATE chunks c SET title_length = l.title, description_length = l.description, heading_length = l.heading, body_length = l.body
         FROM unnest($1::bigint[], $2::int[], $3::int[], $4::int[], $5::int[]) AS l(id, title, description, heading, body)
         WHERE c.id = l.id`,
        [
          passages.map((passage) => passage.chunkId),
          ...[0, 1, 2, 3].map((field) => passages.map((passage) => passage.index.lengths[field]!)),
        ],
      );
    }
    const counts = (
      await client.query<{ previous: number; count: number }>(
        'SELECT chunk_count AS previous, (SELECT COUNT(*)::int FROM chunks WHERE document_id = $1) AS count FROM documents WHERE id = $1',
        [documentId],
      )
    ).rows[0];
    await client.query(
      `UPDATE documents SET chunk_count = $1, title_length_sum = $2, description_length_sum = $3, heading_length_sum = $4,
         body_length_sum = $5, analysis_version = $6 WHERE id = $7`,
      [counts?.count ?? 0, ...sums, analysisVersion, documentId],
    );
    await adjustStats(client, kbId, (counts?.count ?? 0) - (counts?.previous ?? 0));
  }

  async #deleteDocument(client: PoolClient, kbId: string, documentId: number): Promise<void> {
    const totals = (await client.query<{ count: number }>('SELECT chunk_count AS count FROM documents WHERE id = $1', [documentId])).rows[0];
    await client.query('DELETE FROM postings WHERE chunk_id IN (SELECT id FROM chunks WHERE document_id = $1)', [documentId]);
    await client.query('DELETE FROM page_postings WHERE document_id = $1', [documentId]);
    await client.query('DELETE FROM documents WHERE id = $1', [documentId]);
    if (totals) await adjustStats(client, kbId, -totals.count);
  }

  getDocument(kbId: string, docId: string): Promise<DocumentRecord | undefined> {
    return this.#call(async (database) => {
      const row = (
        await database.query<DocumentRow>(`SELECT ${DOCUMENT_COLUMNS} FROM documents d WHERE d.kb_id = $1 AND d.doc_id = $2`, [kbId, docId])
      ).rows[0];
      return row && toDocument(row);
    });
  }

  listDocuments(kbId: string): Promise<DocumentRecord[]> {
    return this.#call(async (database) =>
      (await database.query<DocumentRow>(`SELECT ${DOCUMENT_COLUMNS} FROM documents d WHERE d.kb_id = $1 ORDER BY d.doc_id`, [kbId])).rows.map(
        toDocument,
      ),
    );
  }

  setDocumentAccess(
    kbId: string,
    docId: string,
    access: { visibility: Visibility; readers: string[]; quotable: boolean },
  ): Promise<void> {
    return this.#transaction(async (client) => {
      const row = (
        await client.query<{ id: number }>('SELECT id FROM documents WHERE kb_id = $1 AND doc_id = $2 FOR UPDATE', [kbId, docId])
      ).rows[0];
      if (!row) throw new NotFoundError(`Document "${docId}" does not exist in knowledge base "${kbId}"`);
      await client.query('UPDATE documents SET visibility = $1, quotable = $2, updated_at = $3 WHERE id = $4', [
        access.visibility,
        access.quotable,
        this.#now(),
        row.id,
      ]);
      await client.query('DELETE FROM document_readers WHERE document_id = $1', [row.id]);
      await insertReaders(client, row.id, access.readers);
    });
  }

  setDocumentUrls(kbId: string, urls: readonly { docId: string; url?: string }[]): Promise<void> {
    return this.#transaction(async (client) => {
      if (urls.length === 0) return;
      await client.query(
        `UPDATE documents d SET url = u.url FROM unnest($2::text[], $3::text[]) AS u(doc_id, url)
         WHERE d.kb_id = $1 AND d.doc_id = u.doc_id`,
        [kbId, urls.map((entry) => entry.docId), urls.map((entry) => entry.url ?? null)],
      );
    });
  }

  removeDocument(kbId: string, docId: string): Promise<boolean> {
    return this.#transaction(async (client) => {
      if (!(await lockKnowledgeBase(client, kbId, { required: false }))) return false;
      const row = (await client.query<{ id: number }>('SELECT id FROM documents WHERE kb_id = $1 AND doc_id = $2', [kbId, docId]))
        .rows[0];
      if (!row) return false;
      await this.#deleteDocument(client, kbId, row.id);
      return true;
    });
  }

  reachStatistics(reach: Reach): Promise<ReachStatistics> {
    return this.#call((database) => readReachStatistics(database, reach));
  }

  readIndex(kbId: string, maxPostings: number): Promise<KnowledgeBaseIndex | undefined> {
    return this.#transaction((client) => readPostgresIndex(client, kbId, maxPostings), { snapshot: true });
  }

  readTermIndex(kbId: string, terms: readonly string[]): Promise<KnowledgeBaseIndex> {
    return this.#transaction((client) => readPostgresTermIndex(client, kbId, terms), { snapshot: true });
  }

  passagesById(kbId: string, chunkIds: readonly number[]): Promise<StoredPassage[]> {
    return this.#call((database) => readPostgresPassagesById(database, kbId, chunkIds));
  }

  listStaleDocuments(analysisVersion: string): Promise<{ kbId: string; docId: string }[]> {
    return this.#call(
      async (database) =>
        (
          await database.query<{ kbId: string; docId: string }>(
            `SELECT kb_id AS "kbId", doc_id AS "docId" FROM documents
             WHERE analysis_version IS DISTINCT FROM $1 ORDER BY kb_id, doc_id`,
            [analysisVersion],
          )
        ).rows,
    );
  }

  readIndexableDocument(kbId: string, docId: string): Promise<{ title: string; description?: string; passages: IndexablePassage[] } | undefined> {
    return this.#transaction(
      async (client) => {
        const document = (
          await client.query<{ id: number; title: string; description: string | null }>(
            'SELECT id, title, description FROM documents WHERE kb_id = $1 AND doc_id = $2',
            [kbId, docId],
          )
        ).rows[0];
        if (!document) return undefined;
        const passages = (
          await client.query<IndexablePassage>(
            'SELECT id AS "chunkId", heading_path AS "headingPath", text FROM chunks WHERE document_id = $1 ORDER BY ordinal',
            [document.id],
          )
        ).rows;
        return { title: document.title, ...(document.description === null ? {} : { description: document.description }), passages };
      },
      { snapshot: true },
    );
  }

  reindexDocument(
    kbId: string,
    docId: string,
    analysisVersion: string,
    passages: readonly { chunkId: number; index: IndexedPassage }[],
    page: IndexedPage,
  ): Promise<void> {
    return this.#transaction(async (client) => {
      await lockKnowledgeBase(client, kbId);
      const document = (await client.query<{ id: number }>('SELECT id FROM documents WHERE kb_id = $1 AND doc_id = $2', [kbId, docId])).rows[0];
      if (!document) throw new NotFoundError(`Document "${docId}" does not exist in knowledge base "${kbId}"`);
      const own = (await client.query<{ id: number }>('SELECT id FROM chunks WHERE document_id = $1', [document.id])).rows.map((row) => row.id);
      const given = new Set(passages.map((passage) => passage.chunkId));
      if (own.length !== given.size || own.some((chunkId) => !given.has(chunkId))) {
        throw new ConflictError(`The passages of "${docId}" changed while it was re-indexed`);
      }
      await client.query('DELETE FROM postings WHERE chunk_id IN (SELECT id FROM chunks WHERE document_id = $1)', [document.id]);
      await client.query('DELETE FROM page_postings WHERE document_id = $1', [document.id]);
      await this.#writeIndex(client, kbId, document.id, analysisVersion, passages, page);
    });
  }

  passagesOf(reach: Reach, docId: string, heading?: string): Promise<ScoredPassage[]> {
    return this.#call(async (database) => {
      const { rows } = await database.query<PostgresPassageRow>(
        `SELECT c.id AS "chunkId", ${POSTGRES_PASSAGE_COLUMNS}
         FROM chunks c JOIN documents d ON d.id = c.document_id
         WHERE d.doc_id = $4 AND ${POSTGRES_REACH_FILTER}
           AND ($5::text IS NULL OR $5::text = ANY(c.heading_path))
         ORDER BY c.ordinal`,
        [...postgresReachParameters(reach), docId, heading ?? null],
      );
      return rows.map((row) => ({ ...toPostgresPassage(reach.kbId, row), score: 0 }));
    });
  }

  countPassages(reach: Reach, docId: string): Promise<number> {
    return this.#call(async (database) => {
      const { rows } = await database.query<{ count: number }>(
        `SELECT COUNT(*)::int AS count FROM chunks c JOIN documents d ON d.id = c.document_id
         WHERE d.doc_id = $4 AND ${POSTGRES_REACH_FILTER}`,
        [...postgresReachParameters(reach), docId],
      );
      return rows[0]?.count ?? 0;
    });
  }

  addFeedback(input: FeedbackInput): Promise<number> {
    return this.#transaction(async (client) => {
      await requireKnowledgeBase(client, input.kbId);
      const { rows } = await client.query<{ id: number }>(
        `INSERT INTO feedback (kb_id, kind, created_at, question, provenance, rating, reason, comment)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
        [input.kbId, input.kind, input.createdAt, input.question, input.provenance, input.rating ?? null, input.reason ?? null, input.comment ?? null],
      );
      const id = rows[0]!.id;
      if (input.passages.length > 0) {
        await client.query(
          `INSERT INTO feedback_passages (feedback_id, ordinal, doc_id, chunk_id, version)
           SELECT $1, p.ordinal - 1, p.doc_id, p.chunk_id, p.version
           FROM unnest($2::text[], $3::bigint[], $4::text[]) WITH ORDINALITY AS p(doc_id, chunk_id, version, ordinal)`,
          [
            id,
            input.passages.map((passage) => passage.docId),
            input.passages.map((passage) => passage.chunkId),
            input.passages.map((passage) => passage.version),
          ],
        );
      }
      return id;
    });
  }

  listFeedback(reach: Reach, page: { limit: number; before?: FeedbackCursor }): Promise<FeedbackRecord[]> {
    return this.#call(async (database) => {
      const { rows } = await database.query<FeedbackRow>(
        `SELECT ${FEEDBACK_COLUMNS} FROM feedback
         WHERE kb_id = $1 AND ($2::bigint IS NULL OR (created_at, id) < ($2::bigint, $3::bigint))
         ORDER BY created_at DESC, id DESC LIMIT $4`,
        [reach.kbId, page.before?.createdAt ?? null, page.before?.id ?? null, page.limit],
      );
      const passages = await database.query<FeedbackPassageRow>(
        `SELECT p.feedback_id, p.doc_id, p.chunk_id, p.version,
                (SELECT d.title FROM documents d WHERE d.doc_id = p.doc_id AND ${POSTGRES_REACH_FILTER}) AS title
         FROM feedback_passages p WHERE p.feedback_id = ANY($4::bigint[])
         ORDER BY p.feedback_id, p.ordinal`,
        [...postgresReachParameters(reach), rows.map((row) => row.id)],
      );
      return feedbackRecords(reach.kbId, rows, passages.rows);
    });
  }

  replaceFaq(kbId: string, pairs: FaqPair[]): Promise<void> {
    return this.#transaction(async (client) => {
      await lockKnowledgeBase(client, kbId);
      await client.query('DELETE FROM faq_pairs WHERE kb_id = $1', [kbId]);
      if (pairs.length === 0) return;
      await client.query(
        `INSERT INTO faq_pairs (kb_id, ordinal, question, answer, sources)
         SELECT $1, f.ordinal - 1, f.question, f.answer, f.sources
         FROM unnest($2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS f(question, answer, sources, ordinal)`,
        [
          kbId,
          pairs.map((pair) => pair.question),
          pairs.map((pair) => pair.answer),
          pairs.map((pair) => JSON.stringify(pair.sources)),
        ],
      );
    });
  }

  listFaq(kbId: string): Promise<FaqPair[]> {
    return this.#call(async (database) =>
      (
        await database.query<{ question: string; answer: string; sources: string }>(
          'SELECT question, answer, sources FROM faq_pairs WHERE kb_id = $1 ORDER BY ordinal',
          [kbId],
        )
      ).rows.map((row) => ({
        question: row.question,
        answer: row.answer,
        sources: JSON.parse(row.sources) as FaqPair['sources'],
      })),
    );
  }

  ping(): Promise<void> {
    return this.#call(async (database) => {
      await database.query('SELECT 1');
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.end();
  }
}

/**
 * Locks the knowledge base's `index_stats` row for the transaction.
 *
 * @returns whether the knowledge base exists
 * @throws NotFoundError when it does not and `required` (default)
 */
async function lockKnowledgeBase(client: PoolClient, kbId: string, options = { required: true }): Promise<boolean> {
  const { rowCount } = await client.query('SELECT 1 FROM index_stats WHERE kb_id = $1 FOR UPDATE', [kbId]);
  if (rowCount === 0 && options.required) throw new NotFoundError(`Knowledge base "${kbId}" does not exist`);
  return rowCount !== 0;
}

/** @throws NotFoundError when the knowledge base does not exist */
async function requireKnowledgeBase(database: Queryable, kbId: string): Promise<void> {
  if ((await database.query('SELECT 1 FROM knowledge_bases WHERE id = $1', [kbId])).rowCount === 0) {
    throw new NotFoundError(`Knowledge base "${kbId}" does not exist`);
  }
}

/** Lists the readers of a restricted document (duplicates ignored). */
async function insertReaders(client: PoolClient, documentId: number, readers: readonly string[]): Promise<void> {
  if (readers.length === 0) return;
  await client.query(
    'INSERT INTO document_readers (document_id, user_id) SELECT $1, r.user_id FROM unnest($2::text[]) AS r(user_id)',
    [documentId, [...new Set(readers)]],
  );
}

/**
 * Adds a change of a knowledge base's postings to its statistics and bumps
 * its index version, in the caller's transaction (as the SQLite store does).
 */
async function adjustStats(client: PoolClient, kbId: string, chunks: number): Promise<void> {
  await client.query('UPDATE index_stats SET chunk_count = chunk_count + $1, version = version + 1 WHERE kb_id = $2', [chunks, kbId]);
}
