import { describe, expect, it } from 'vitest';
import { formatReport, type EvalReport } from './eval-report.ts';
import { loadManifest } from '../server/embedding/model-manifest.ts';

const miniLm = loadManifest().find((model) => model.id === 'sentence-transformers/all-MiniLM-L6-v2')!;

describe('formatReport', () => {
  it('shows each figure beside its anchor and says whether its target is met', () => {
    const report: EvalReport = {
      scifact: {
        figures: { ndcg_at_10: 0.75, recall_at_100: 0.95 },
        retrievers: {
          bm25f: { ndcg_at_10: 0.69123, recall_at_100: 0.9 },
          dense: { ndcg_at_10: 0.6468, recall_at_100: 0.92 },
          hybrid: { ndcg_at_10: 0.73, recall_at_100: 0.95 },
        },
        documents: 5183,
        passages: 8000,
        queries: 300,
        ingestSeconds: 12,
        seconds: 20,
      },
      squad: undefined,
      clapnq: undefined,
      seconds: 21.04,
    };
    const text = formatReport(report, miniLm);

    expect(text).toContain('| SciFact BM25F | nDCG@10 | 0.6912 | BM25 flat 0.6789, multifield 0.6647 | >= 0.68 (met) |');
    expect(text).toContain('| SciFact BM25F | Recall@100 | 0.9000 | BM25 flat 0.9253, multifield 0.9076 | - |');
    expect(text).toContain('| SciFact dense | nDCG@10 | 0.6468 | all-MiniLM-L6-v2, MTEB 0.6451 | 0.6451 ± 0.01 (met) |');
    expect(text).toContain('| SciFact hybrid (RRF) | nDCG@10 | 0.7300 | - | >= 0.74 (not met) |');
    expect(text).not.toContain('SQuAD');
    expect(text).toContain('Total: 21.0 s');

    // A model whose manifest entry pins no published figure has nothing to reproduce.
    const unpinned = formatReport(report, { ...miniLm, id: 'acme/encoder', published: undefined });
    expect(unpinned).toContain('| SciFact dense | nDCG@10 | 0.6468 | encoder: no published figure pinned | - |');
  });
});
