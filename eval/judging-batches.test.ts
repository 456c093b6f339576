import { describe, expect, it } from 'vitest';
import type { DumpRecord } from './docs-eval.ts';
import { judgingBatches, SHOWN_SECTION_CHARACTERS } from './judging-batches.ts';

function record(id: string, top: [string, string[]][], expect: 'answer' | 'abstain' = 'answer'): DumpRecord {
  return {
    set: 'k8s',
    split: 'report',
    id,
    question: `question ${id}`,
    expect,
    gold: ['gold.md'],
    answer: '',
    abstained: true,
    cited: [],
    cited_gold: false,
    right: false,
    hit_at_5: false,
    answering_rank: null,
    evidence: 0.2,
    top: top.map(([doc_id, heading]) => ({ doc_id, heading })),
    ms: 1,
  };
}

const text = (page: string, heading: readonly string[]) => (page === 'gone.md' ? undefined : `${page}: ${heading.join(' / ')}`);

describe('judgingBatches', () => {
  it('shows each page not yet judged once, with all its retrieved sections, the gold page unmarked among them', () => {
    const [batch] = judgingBatches(
      [record('q-1', [['a.md', ['A', 'One']], ['gold.md', ['Gold']], ['a.md', ['A', 'Two']], ['judged.md', ['J']]])],
      new Map([['q-1', { 'judged.md': 'no' as const }]]),
      text,
      10,
    );

    expect(batch?.match(/^### Page .*$/gm)).toEqual(['### Page q-1 #1: `a.md`', '### Page q-1 #2: `gold.md`']);
    expect(batch).toContain('a.md: A / One');
    expect(batch).toContain('a.md: A / Two');
    expect(batch).not.toContain('judged.md');
    expect(batch).not.toMatch(/gold page/i);
  });

  it('leaves out off-topic questions and questions whose pages are all judged, and cuts batches at the size asked', () => {
    const records = [
      record('q-1', [['a.md', ['A']]]),
      record('q-2', [['b.md', ['B']]]),
      record('off', [['c.md', ['C']]], 'abstain'),
      record('q-3', [['d.md', ['D']]]),
      record('q-4', [['e.md', ['E']]]),
    ];
    const batches = judgingBatches(records, new Map([['q-2', { 'b.md': 'answers' as const }]]), text, 2);

    expect(batches.map((batch) => batch.match(/^## Question (\S+)$/gm))).toEqual([
      ['## Question q-1', '## Question q-3'],
      ['## Question q-4'],
    ]);
  });

  it('cuts a long section and says when the page no longer has it', () => {
    const long = 'x'.repeat(SHOWN_SECTION_CHARACTERS + 100);
    const [batch] = judgingBatches(
      [record('q-1', [['long.md', ['L']], ['gone.md', ['G']]])],
      new Map(),
      (page) => (page === 'long.md' ? long : undefined),
      10,
    );

    expect(batch).toContain(`${'x'.repeat(SHOWN_SECTION_CHARACTERS)} [...]`);
    expect(batch).not.toContain('x'.repeat(SHOWN_SECTION_CHARACTERS + 1));
    expect(batch).toContain('(the page no longer has this section)');
  });
});
