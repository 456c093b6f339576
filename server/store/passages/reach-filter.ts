import type { SqlDialect } from '../sql-executor.ts';
import type { Reach } from './passages.ts';

/** How a query names {@link reachFilter}'s three values: `?` each (the default), or named or numbered parameters. */
export interface ReachPlaceholders {
  kbId: string;
  /** The reach's visibilities, a {@link SqlDialect.writeList} value. */
  visibilities: string;
  userId: string;
}

const POSITIONAL: ReachPlaceholders = { kbId: '?', visibilities: '?', userId: '?' };

/**
 * The documents (`d`) of a reach: the one rule of every query of either
 * store that reads inside a reach (the index reads of store/sqlite/sqlite-index.ts and
 * store/postgres/postgres-index.ts, the feedback's titles): the knowledge base, one of
 * the reach's visibilities, and a `restricted` document only for a listed
 * reader. With `?` placeholders its parameters are {@link reachParameters},
 * in order.
 *
 * @param placeholders how the query names the three values
 */
export function reachFilter(dialect: SqlDialect, placeholders: ReachPlaceholders = POSITIONAL): string {
  return `d.kb_id = ${placeholders.kbId}
  AND ${dialect.memberOf('d.visibility', placeholders.visibilities)}
  AND (d.visibility <> 'restricted'
       OR EXISTS (SELECT 1 FROM document_readers r WHERE r.document_id = d.id AND r.user_id = ${placeholders.userId}))`;
}

/** The values of {@link reachFilter}'s three placeholders for one reach, in order. */
export function reachParameters(dialect: SqlDialect, reach: Reach): [kbId: string, visibilities: unknown, userId: string] {
  return [reach.kbId, dialect.writeList(reach.visibilities), reach.userId];
}
