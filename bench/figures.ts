/** The statistics and number formatting the benchmark's tables share (bench/run.ts, bench/scale-table.ts). */

/**
 * The `q`-quantile of `values` by the nearest-rank method (the value at rank
 * ⌊q·n⌋ of the sorted values, capped at the last); NaN when there are none.
 */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

/** A figure as the tables print it: `-` for NaN, whole from 100 up, else two decimals. */
export function formatFigure(value: number): string {
  return Number.isNaN(value) ? '-' : value >= 100 ? value.toFixed(0) : value.toFixed(2);
}
