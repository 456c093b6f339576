import { createHash } from 'node:crypto';

/**
 * The fit/report split of the documentation evaluation (eval/README.md
 * "Documentation sets"): anything tuned (weights, thresholds, features) may be fitted
 * on `fit`; the figures eval/README.md and the targets quote are `report`'s.
 *
 * The split is stratified and deterministic: items are grouped by stratum
 * (for the Node.js set, the first gold page, so both halves cover the same
 * modules; off-topic questions form their own strata), strata are taken in
 * code-unit order of their names, and within a stratum items are ordered by
 * the SHA-256 of their id (hex, ties by id). Items are then dealt
 * alternately to `fit` and `report`, the alternation running on across
 * strata, so a stratum of even size splits evenly, odd strata take turns at
 * the extra item, and the halves differ in size by at most one. The order
 * depends only on the ids, never on the questions' wording or on any result.
 */

export type Split = 'fit' | 'report';

/** One item to split: its id (unique) and its stratum. */
export interface SplitItem {
  id: string;
  stratum: string;
}

/**
 * @returns each id's half
 * @throws Error when an id repeats
 */
export function assignSplits(items: readonly SplitItem[]): Map<string, Split> {
  const strata = new Map<string, SplitItem[]>();
  for (const item of items) strata.set(item.stratum, [...(strata.get(item.stratum) ?? []), item]);
  const splits = new Map<string, Split>();
  let next: Split = 'fit';
  for (const stratum of [...strata.keys()].sort(byCodeUnits)) {
    const ordered = (strata.get(stratum) ?? [])
      .map((item) => ({ id: item.id, hash: sha256(item.id) }))
      .sort((left, right) => byCodeUnits(left.hash, right.hash) || byCodeUnits(left.id, right.id));
    for (const { id } of ordered) {
      if (splits.has(id)) throw new Error(`Item id "${id}" occurs more than once`);
      splits.set(id, next);
      next = next === 'fit' ? 'report' : 'fit';
    }
  }
  return splits;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function byCodeUnits(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
