import BetterSqlite3 from 'better-sqlite3';
import { prepareSearch, type PreparedSearch } from './sqlite-search.ts';
import type { SearchQuery, SearchResult } from './store.ts';

/**
 * Worker-thread entry of the retrieval pool: runs BM25 searches on its own
 * read-only connection so a slow query never blocks the event loop that
 * carries every open stream (DESIGN.md "Storage").
 */

/** A search request sent to a worker. */
export interface RetrievalTask {
  /** Path of the SQLite database file. */
  databasePath: string;
  query: SearchQuery;
}

const searches = new Map<string, PreparedSearch>();

function searchFor(databasePath: string): PreparedSearch {
  let search = searches.get(databasePath);
  if (!search) {
    const database = new BetterSqlite3(databasePath, { readonly: true, fileMustExist: true });
    database.pragma('busy_timeout = 5000');
    search = prepareSearch(database);
    searches.set(databasePath, search);
  }
  return search;
}

/** Runs one search; called by piscina. */
export default function runRetrievalTask(task: RetrievalTask): SearchResult {
  return searchFor(task.databasePath).run(task.query);
}
