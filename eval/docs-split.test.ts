import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { assignSplits } from './docs-split.ts';

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

describe('assignSplits', () => {
  it('deals a stratum alternately, fit first, in the order of the ids\' SHA-256', () => {
    const ids = ['a', 'b', 'c', 'd'];
    const byHash = [...ids].sort((left, right) => (sha256(left) < sha256(right) ? -1 : 1));

    const splits = assignSplits(ids.map((id) => ({ id, stratum: 'fs.md' })));

    expect(byHash.map((id) => splits.get(id))).toEqual(['fit', 'report', 'fit', 'report']);
  });

  it('runs the alternation on across strata, so odd strata take turns at the extra item', () => {
    const items = [
      { id: 'x1', stratum: 'b.md' },
      { id: 'y1', stratum: 'a.md' },
      { id: 'z1', stratum: 'c.md' },
    ];

    const splits = assignSplits(items);

    // Strata in name order: a.md (y1), b.md (x1), c.md (z1).
    expect([splits.get('y1'), splits.get('x1'), splits.get('z1')]).toEqual(['fit', 'report', 'fit']);
  });

  it('gives the same halves whatever order the items come in', () => {
    const items = Array.from({ length: 12 }, (_, index) => ({ id: `q${index}`, stratum: `m${index % 3}` }));

    expect(assignSplits([...items].reverse())).toEqual(assignSplits(items));
  });

  it('rejects an id that occurs twice', () => {
    expect(() =>
      assignSplits([
        { id: 'same', stratum: 'a' },
        { id: 'same', stratum: 'b' },
      ]),
    ).toThrow('"same"');
  });
});
