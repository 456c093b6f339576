/**
 * Top-k selection over accumulated scores: the `k` slots of highest score,
 * ties broken by slot ascending (a total order, so every backend and every
 * run returns the same list), best first.
 *
 * A bounded binary min-heap of the best `k` seen so far, its root the worst
 * of them: each further slot costs one comparison with the root and is
 * mostly rejected there, so selecting from n candidates is O(n log k) at
 * worst and close to O(n) in practice - the "priority queue of the current
 * top-k" of Lucene's TopScoreDocCollector (org.apache.lucene.util.PriorityQueue),
 * instead of sorting all n.
 */

/**
 * The best `topK` of `candidates` by `scores[slot]` descending, then slot ascending.
 *
 * @param scores score per slot (read only at the candidates' slots)
 * @param candidates the slots to choose from, each once
 * @param count how many of `candidates` to read (from the start)
 * @param topK slots wanted (>= 0)
 * @returns up to `topK` slots, best first
 */
export function topSlots(scores: Float32Array | Float64Array, candidates: Uint32Array, count: number, topK: number): number[] {
  const size = Math.min(topK, count);
  if (size <= 0) return [];
  const heap = new Uint32Array(size);
  // `worse(a, b)`: a ranks after b.
  const worse = (a: number, b: number) => scores[a]! < scores[b]! || (scores[a] === scores[b] && a > b);
  for (let index = 0; index < size; index++) {
    // Sift up the new slot.
    let position = index;
    const slot = candidates[index]!;
    while (position > 0) {
      const parent = (position - 1) >> 1;
      if (!worse(slot, heap[parent]!)) break;
      heap[position] = heap[parent]!;
      position = parent;
    }
    heap[position] = slot;
  }
  // The root's score and slot held in locals: most candidates are rejected by one comparison, with no call (a NaN score never enters).
  let floorSlot = heap[0]!;
  let floor = scores[floorSlot]!;
  for (let index = size; index < count; index++) {
    const slot = candidates[index]!;
    const score = scores[slot]!;
    if (!(score >= floor) || (score === floor && slot > floorSlot)) continue;
    siftDown(heap, size, slot, worse);
    floorSlot = heap[0]!;
    floor = scores[floorSlot]!;
  }
  // Pop the worst first, filling the result from its end.
  const best = new Array<number>(size);
  for (let remaining = size; remaining > 0; remaining--) {
    best[remaining - 1] = heap[0]!;
    if (remaining > 1) siftDown(heap, remaining - 1, heap[remaining - 1]!, worse);
  }
  return best;
}

/** Puts `slot` at the root of the first `size` entries of the heap and sifts it down to its place. */
function siftDown(heap: Uint32Array, size: number, slot: number, worse: (a: number, b: number) => boolean): void {
  let position = 0;
  for (;;) {
    let child = 2 * position + 1;
    if (child >= size) break;
    if (child + 1 < size && worse(heap[child + 1]!, heap[child]!)) child++;
    if (!worse(heap[child]!, slot)) break;
    heap[position] = heap[child]!;
    position = child;
  }
  heap[position] = slot;
}
