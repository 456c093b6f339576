import type { SqlDialect } from './sql-executor.ts';
import type { Reach } from './store.ts';

/**
 * The documents (`d`) of a reach, with `?` placeholders, for the queries
 * written once for both backends: the same rule as the index reads'
 * (sqlite-index.ts's `SQLITE_REACH_FILTER`, postgres-index.ts's
 * `POSTGRES_REACH_FILTER`): the knowledge base, one of the reach's
 * visibilities, and a `restricted` document only for a listed reader.
 * Its parameters are {@link reachParameters}, in order.
 */
export function reachFilter(dialect: SqlDialect): string {
  return `d.kb_id = ?
  AND ${dialect.memberOf('d.visibility')}
  AND (d.visibility <> 'restricted'
       OR EXISTS (SELECT 1 FROM document_readers r WHERE r.document_id = d.id AND r.user_id = ?))`;
}

/** The values of {@link reachFilter}'s three placeholders for one reach. */
export function reachParameters(dialect: SqlDialect, reach: Reach): unknown[] {
  return [reach.kbId, dialect.writeList(reach.visibilities), reach.userId];
}
