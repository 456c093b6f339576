import type { SqlExecutor } from '../sql-executor.ts';
import type { ImportPageState, ImportSourceRecord, ImportSourceRepository, ImportSourceSync } from './import-sources.ts';

/** An `import_sources` row as both backends return it (times may come back as strings from PostgreSQL's bigint). */
interface ImportSourceRow {
  id: string;
  kbId: string;
  kind: string;
  urls: string;
  settings: string;
  resyncHours: number | string;
  createdBy: string;
  createdAt: number | string;
  nextSyncAt: number | string;
  lastSync: string | null;
}

const SOURCE_COLUMNS = `id, kb_id AS "kbId", kind, urls, settings, resync_hours AS "resyncHours", created_by AS "createdBy",
  created_at AS "createdAt", next_sync_at AS "nextSyncAt", last_sync AS "lastSync"`;

/**
 * Re-synced website imports and the validators and links their last sync
 * learned, written once for both backends over a {@link SqlExecutor}. URLs,
 * settings and links are JSON text in both; a source is unique by knowledge
 * base, kind and URLs (the same import set up twice is one source).
 */
export function importSourceRepository(sql: SqlExecutor): ImportSourceRepository {
  const getByKey = (kbId: string, kind: string, urls: string) =>
    sql.get<ImportSourceRow>(`SELECT ${SOURCE_COLUMNS} FROM import_sources WHERE kb_id = ? AND kind = ? AND urls = ?`, [kbId, kind, urls]);
  return {
    async saveImportSource(source) {
      const urls = JSON.stringify(source.urls);
      await sql.run(
        `INSERT INTO import_sources (id, kb_id, kind, urls, settings, resync_hours, created_by, created_at, next_sync_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (kb_id, kind, urls) DO UPDATE SET settings = excluded.settings, resync_hours = excluded.resync_hours,
           created_by = excluded.created_by, next_sync_at = excluded.next_sync_at`,
        [source.id, source.kbId, source.kind, urls, JSON.stringify(source.settings), source.resyncHours, source.createdBy, source.createdAt, source.nextSyncAt],
      );
      return toSource((await getByKey(source.kbId, source.kind, urls))!);
    },
    async listImportSources(kbId) {
      const rows = await sql.all<ImportSourceRow>(`SELECT ${SOURCE_COLUMNS} FROM import_sources WHERE kb_id = ? ORDER BY next_sync_at, id`, [kbId]);
      return rows.map(toSource);
    },
    async getImportSource(kbId, id) {
      const row = await sql.get<ImportSourceRow>(`SELECT ${SOURCE_COLUMNS} FROM import_sources WHERE kb_id = ? AND id = ?`, [kbId, id]);
      return row === undefined ? undefined : toSource(row);
    },
    async deleteImportSource(kbId, id) {
      return (await sql.run('DELETE FROM import_sources WHERE kb_id = ? AND id = ?', [kbId, id])) > 0;
    },
    async claimDueImportSource(at) {
      // Another process may claim the row read first: then read the next one due.
      for (;;) {
        const due = await sql.get<ImportSourceRow>(`SELECT ${SOURCE_COLUMNS} FROM import_sources WHERE next_sync_at <= ? ORDER BY next_sync_at, id LIMIT 1`, [at]);
        if (due === undefined) return undefined;
        const source = toSource(due);
        const claimed = await sql.run('UPDATE import_sources SET next_sync_at = ? WHERE id = ? AND next_sync_at = ?', [
          at + source.resyncHours * 3_600_000,
          source.id,
          source.nextSyncAt,
        ]);
        if (claimed === 1) return source;
      }
    },
    finishImportSourceSync(id, sync, pages) {
      return sql.transaction(async (transaction) => {
        if ((await transaction.run('UPDATE import_sources SET last_sync = ? WHERE id = ?', [JSON.stringify(sync), id])) === 0) return;
        if (pages === undefined) return;
        await transaction.run('DELETE FROM import_pages WHERE source_id = ?', [id]);
        for (const page of pages) {
          await transaction.run('INSERT INTO import_pages (source_id, url, doc_id, etag, last_modified, links) VALUES (?, ?, ?, ?, ?, ?)', [
            id,
            page.url,
            page.docId,
            page.etag ?? null,
            page.lastModified ?? null,
            JSON.stringify(page.links),
          ]);
        }
      });
    },
    async listImportPages(sourceId) {
      const rows = await sql.all<{ url: string; docId: string; etag: string | null; lastModified: string | null; links: string }>(
        'SELECT url, doc_id AS "docId", etag, last_modified AS "lastModified", links FROM import_pages WHERE source_id = ? ORDER BY url',
        [sourceId],
      );
      return rows.map(
        (row): ImportPageState => ({
          url: row.url,
          docId: row.docId,
          ...(row.etag === null ? {} : { etag: row.etag }),
          ...(row.lastModified === null ? {} : { lastModified: row.lastModified }),
          links: JSON.parse(row.links) as string[],
        }),
      );
    },
  };
}

function toSource(row: ImportSourceRow): ImportSourceRecord {
  return {
    id: row.id,
    kbId: row.kbId,
    kind: row.kind as ImportSourceRecord['kind'],
    urls: JSON.parse(row.urls) as string[],
    settings: JSON.parse(row.settings) as ImportSourceRecord['settings'],
    resyncHours: Number(row.resyncHours),
    createdBy: row.createdBy,
    createdAt: Number(row.createdAt),
    nextSyncAt: Number(row.nextSyncAt),
    ...(row.lastSync === null ? {} : { lastSync: JSON.parse(row.lastSync) as ImportSourceSync }),
  };
}
